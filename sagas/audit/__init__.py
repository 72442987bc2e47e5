"""The WORM-style audit trail: hash-chained, append-only records in a table or a directory.

`open_audit_store(settings.audit_store)` gives an AuditStore; `verify()` recomputes the
chain from what is stored and names the first bad sequence number; `take_checkpoint()`
exports the head so that a truncated tail is detected too.
"""

from sagas.audit._anchors import AnchoredAuditStore, AnchorStore
from sagas.audit._checkpoint import Checkpoint
from sagas.audit._factory import open_audit_store
from sagas.audit._keys import (
    PUBLIC_KEYS_SETTING,
    SIGNING_KEY_SETTING,
    AuditKeys,
    Keyring,
    SigningKey,
    public_pem,
)
from sagas.audit._record import GENESIS_HASH, AuditRecord, hashed_fields
from sagas.audit._store import AuditStore
from sagas.audit._table_model import metadata
from sagas.audit._take_checkpoint import take_checkpoint
from sagas.audit._verify import VerifyResult
from sagas.audit._witness import (
    SCHEDULE_ACTION_WORKFLOW,
    Witnessed,
    witness_findings,
    witnessed_records,
)

__all__ = [
    "GENESIS_HASH",
    "PUBLIC_KEYS_SETTING",
    "SCHEDULE_ACTION_WORKFLOW",
    "SIGNING_KEY_SETTING",
    "AnchorStore",
    "AnchoredAuditStore",
    "AuditKeys",
    "AuditRecord",
    "AuditStore",
    "Checkpoint",
    "Keyring",
    "SigningKey",
    "VerifyResult",
    "Witnessed",
    "hashed_fields",
    "metadata",
    "open_audit_store",
    "public_pem",
    "take_checkpoint",
    "witness_findings",
    "witnessed_records",
]
