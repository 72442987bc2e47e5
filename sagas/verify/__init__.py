"""Verification for auditors: the audit trail and the ledger against their anchors and
Temporal, and the compensation audit that proves each undone saga from the ledger."""

from sagas.verify._audit_keys import anchor_head, open_audit, verifier_keys, writer_keys
from sagas.verify._audit_verify import TrailVerdict, verify_trail
from sagas.verify._compensation_audit import (
    AUDITED,
    CompensationAudit,
    audit_saga,
    run_compensation_audit,
)
from sagas.verify._ledger_verify import LedgerVerdict, verify_ledger

__all__ = [
    "AUDITED",
    "CompensationAudit",
    "LedgerVerdict",
    "TrailVerdict",
    "anchor_head",
    "audit_saga",
    "open_audit",
    "run_compensation_audit",
    "verifier_keys",
    "verify_ledger",
    "verify_trail",
    "writer_keys",
]
