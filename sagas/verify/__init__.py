"""Verification for auditors: the audit trail and the ledger against their anchors and
Temporal, the compensation audit that proves each undone saga from the ledger, the
reconciliation pack of a period, and the offline check of either signed report."""

from sagas.verify._account_witness import AccountChanges, account_witness_findings
from sagas.verify._action_histories import ActionHistories, read_action_histories
from sagas.verify._anchored_reach import AnchoredReach, anchored_reach
from sagas.verify._audit_keys import anchor_head, open_audit, verifier_keys, writer_keys
from sagas.verify._audit_verify import TrailVerdict, verify_trail
from sagas.verify._compensation_audit import AUDITED, CompensationAudit, run_compensation_audit
from sagas.verify._entry_witness import awaiting_witness, entry_witness_findings
from sagas.verify._evidence_model import (
    EVIDENCE_FORMAT,
    NOT_RECONCILED,
    EntryEvidence,
    EvidencePack,
    RailMovementEvidence,
    SagaEvidence,
)
from sagas.verify._evidence_pack import PackRequest, build_evidence_pack, sources_of
from sagas.verify._evidence_signing import EvidenceReport, sign_pack
from sagas.verify._ledger_memory import LEDGER_VERIFIED_HEAD
from sagas.verify._ledger_verify import LedgerVerdict, verify_ledger
from sagas.verify._ledger_witness import LedgerWitness, read_ledger_witness, verified_records
from sagas.verify._reconciliation_model import (
    RECONCILIATION_FORMAT,
    AccountProof,
    BreakAct,
    BreakEvidence,
    FileEvidence,
    LineEvidence,
    MatchEvidence,
    OperatorIdentity,
    ProofItemEvidence,
    ReconciliationPack,
    StatementEvidence,
    StatementProof,
)
from sagas.verify._reconciliation_pack import ReconciliationRequest, build_reconciliation_pack
from sagas.verify._reconciliation_signing import ReconciliationReport, sign_reconciliation
from sagas.verify._report_check import ReportCheck, check_report
from sagas.verify._report_kinds import ReportKind
from sagas.verify._saga_audit import audit_saga
from sagas.verify._temporal_histories import (
    SeenEntry,
    TemporalWitness,
    receipt_payloads,
    temporal_witness,
)
from sagas.verify._temporal_runs import TemporalRun, run_statuses, saga_runs, shown_statuses

__all__ = [
    "AUDITED",
    "EVIDENCE_FORMAT",
    "LEDGER_VERIFIED_HEAD",
    "NOT_RECONCILED",
    "RECONCILIATION_FORMAT",
    "AccountChanges",
    "AccountProof",
    "ActionHistories",
    "AnchoredReach",
    "BreakAct",
    "BreakEvidence",
    "CompensationAudit",
    "EntryEvidence",
    "EvidencePack",
    "EvidenceReport",
    "FileEvidence",
    "LedgerVerdict",
    "LedgerWitness",
    "LineEvidence",
    "MatchEvidence",
    "OperatorIdentity",
    "PackRequest",
    "ProofItemEvidence",
    "RailMovementEvidence",
    "ReconciliationPack",
    "ReconciliationReport",
    "ReconciliationRequest",
    "ReportCheck",
    "ReportKind",
    "SagaEvidence",
    "SeenEntry",
    "StatementEvidence",
    "StatementProof",
    "TemporalRun",
    "TemporalWitness",
    "TrailVerdict",
    "account_witness_findings",
    "anchor_head",
    "anchored_reach",
    "audit_saga",
    "awaiting_witness",
    "build_evidence_pack",
    "build_reconciliation_pack",
    "check_report",
    "entry_witness_findings",
    "open_audit",
    "read_action_histories",
    "read_ledger_witness",
    "receipt_payloads",
    "run_compensation_audit",
    "run_statuses",
    "saga_runs",
    "shown_statuses",
    "sign_pack",
    "sign_reconciliation",
    "sources_of",
    "temporal_witness",
    "verified_records",
    "verifier_keys",
    "verify_ledger",
    "verify_trail",
    "writer_keys",
]
