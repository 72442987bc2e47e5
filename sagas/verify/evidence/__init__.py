"""Evidence: the compensation audit that proves each undone saga from the ledger, its signed
evidence pack and that pack's offline check, with the signed-record scope, figures and
signature the reconciliation pack reuses."""

from sagas.verify.evidence._compensation_audit import (
    AUDITED,
    CompensationAudit,
    run_compensation_audit,
)
from sagas.verify.evidence._evidence_check import compensation_problems
from sagas.verify.evidence._evidence_figures import money_of
from sagas.verify.evidence._evidence_model import (
    EVIDENCE_FORMAT,
    NOT_RECONCILED,
    EntryEvidence,
    EvidencePack,
    PackVerdict,
    RailMovementEvidence,
    SagaEvidence,
    Signature,
)
from sagas.verify.evidence._evidence_pack import (
    PackRequest,
    audit_chain_of,
    build_evidence_pack,
    journal_of,
    os_user,
    sources_of,
)
from sagas.verify.evidence._evidence_saga import signed_record, timestamp
from sagas.verify.evidence._evidence_scope import Chains, Evidence, MadeBy, SignedRecord, Sources
from sagas.verify.evidence._evidence_signing import (
    SIGNATURE_FIELD,
    EvidenceReport,
    SignedPack,
    pack_signature,
    report_signature_problem,
    sign_pack,
)
from sagas.verify.evidence._record_check import anchor_problems, record_problems
from sagas.verify.evidence._saga_audit import audit_saga
from sagas.verify.evidence._temporal_runs import (
    TemporalRun,
    run_statuses,
    saga_runs,
    shown_statuses,
)

__all__ = [
    "AUDITED",
    "EVIDENCE_FORMAT",
    "NOT_RECONCILED",
    "SIGNATURE_FIELD",
    "Chains",
    "CompensationAudit",
    "EntryEvidence",
    "Evidence",
    "EvidencePack",
    "EvidenceReport",
    "MadeBy",
    "PackRequest",
    "PackVerdict",
    "RailMovementEvidence",
    "SagaEvidence",
    "Signature",
    "SignedPack",
    "SignedRecord",
    "Sources",
    "TemporalRun",
    "anchor_problems",
    "audit_chain_of",
    "audit_saga",
    "build_evidence_pack",
    "compensation_problems",
    "journal_of",
    "money_of",
    "os_user",
    "pack_signature",
    "record_problems",
    "report_signature_problem",
    "run_compensation_audit",
    "run_statuses",
    "saga_runs",
    "shown_statuses",
    "sign_pack",
    "signed_record",
    "sources_of",
    "timestamp",
]
