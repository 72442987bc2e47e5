"""Reconciliation: the signed pack of a period (statements, lines, matches, breaks with each
operator's act, proofs of cash) and its offline check."""

from sagas.verify.reconciliation._reconciliation_check import reconciliation_problems
from sagas.verify.reconciliation._reconciliation_model import (
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
from sagas.verify.reconciliation._reconciliation_pack import (
    ReconciliationRequest,
    build_reconciliation_pack,
)
from sagas.verify.reconciliation._reconciliation_signing import (
    ReconciliationReport,
    sign_reconciliation,
)

__all__ = [
    "RECONCILIATION_FORMAT",
    "AccountProof",
    "BreakAct",
    "BreakEvidence",
    "FileEvidence",
    "LineEvidence",
    "MatchEvidence",
    "OperatorIdentity",
    "ProofItemEvidence",
    "ReconciliationPack",
    "ReconciliationReport",
    "ReconciliationRequest",
    "StatementEvidence",
    "StatementProof",
    "build_reconciliation_pack",
    "reconciliation_problems",
    "sign_reconciliation",
]
