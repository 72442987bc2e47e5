"""Witnesses: the audit trail and the ledger verified against their anchors and Temporal (each
journal entry, funding, account change and statement action with its witness), and the audit
keys and ledger head those checks read and remember."""

from sagas.verify.witness._account_witness import AccountChanges, account_witness_findings
from sagas.verify.witness._action_histories import ActionHistories, read_action_histories
from sagas.verify.witness._anchored_reach import AnchoredReach, anchored_reach
from sagas.verify.witness._audit_keys import anchor_head, open_audit, verifier_keys, writer_keys
from sagas.verify.witness._audit_verify import TrailVerdict, verify_trail
from sagas.verify.witness._entry_witness import awaiting_witness, entry_witness_findings
from sagas.verify.witness._funding_witness import AuditedFundings
from sagas.verify.witness._ledger_memory import LEDGER_VERIFIED_HEAD
from sagas.verify.witness._ledger_verify import LedgerVerdict, verify_ledger
from sagas.verify.witness._ledger_witness import (
    LedgerWitness,
    opened_records,
    read_ledger_witness,
    verified_records,
)
from sagas.verify.witness._temporal_histories import (
    SeenEntry,
    TemporalWitness,
    receipt_payloads,
    temporal_witness,
)

__all__ = [
    "LEDGER_VERIFIED_HEAD",
    "AccountChanges",
    "ActionHistories",
    "AnchoredReach",
    "AuditedFundings",
    "LedgerVerdict",
    "LedgerWitness",
    "SeenEntry",
    "TemporalWitness",
    "TrailVerdict",
    "account_witness_findings",
    "anchor_head",
    "anchored_reach",
    "awaiting_witness",
    "entry_witness_findings",
    "open_audit",
    "opened_records",
    "read_action_histories",
    "read_ledger_witness",
    "receipt_payloads",
    "temporal_witness",
    "verified_records",
    "verifier_keys",
    "verify_ledger",
    "verify_trail",
    "writer_keys",
]
