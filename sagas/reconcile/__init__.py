"""Reconciliation: statements from the rails, matched against the ledger's rail movements;
every difference a break with a kind and a lifecycle."""

from sagas.reconcile._breaks import CLOSED_STATUSES, BreakKind, BreakStatus, BreakView
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._models import metadata
from sagas.reconcile._movements import RailMovement, rail_movements
from sagas.reconcile._policy import ReconcilePolicy, parse_fees, policy_from
from sagas.reconcile._read import read_statement
from sagas.reconcile._reconciliation import (
    ImportResult,
    MovementStatus,
    Reconciliation,
    RunResult,
)
from sagas.reconcile._statement import (
    LineDirection,
    LineKind,
    Statement,
    StatementFormat,
    StatementLine,
)

__all__ = [
    "CLOSED_STATUSES",
    "BreakKind",
    "BreakStatus",
    "BreakView",
    "CsvMapping",
    "ImportResult",
    "LineDirection",
    "LineKind",
    "MovementStatus",
    "RailMovement",
    "ReconcilePolicy",
    "Reconciliation",
    "RunResult",
    "Statement",
    "StatementFormat",
    "StatementLine",
    "metadata",
    "parse_fees",
    "policy_from",
    "rail_movements",
    "read_statement",
]
