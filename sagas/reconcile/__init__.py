"""Reconciliation: statements from the rails, matched against the ledger's rail movements;
every difference a break with a kind and a lifecycle."""

from sagas.reconcile._breaks import CLOSED_STATUSES, BreakKind, BreakStatus, BreakView
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._line_accounting import AccountingError, LineRefusal, StatementAccount
from sagas.reconcile._models import metadata
from sagas.reconcile._movements import RailMovement, rail_movements
from sagas.reconcile._period import reconciliation_period
from sagas.reconcile._period_model import (
    LineMatch,
    LineStatus,
    PeriodBreak,
    PeriodFile,
    PeriodLine,
    PeriodScope,
    PeriodStatement,
    PeriodTransaction,
    ReconciliationPeriod,
)
from sagas.reconcile._policy import ReconcilePolicy, parse_fees, policy_from
from sagas.reconcile._proof import ProofItem, ProofOfCash
from sagas.reconcile._provenance import ActionRows, RowsOfAction, reconciliation_rows
from sagas.reconcile._read import read_statement
from sagas.reconcile._reconciliation import (
    ImportResult,
    MovementStatus,
    Reconciliation,
    RunResult,
)
from sagas.reconcile._rules import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    StatementRules,
    policy_facts,
    refuse_size,
)
from sagas.reconcile._statement import (
    Balance,
    LineDirection,
    LineKind,
    LineTransaction,
    Statement,
    StatementFormat,
    StatementLine,
)
from sagas.reconcile._statement_action import (
    EXPLAIN_BREAK_ACTIVITY,
    IMPORT_STATEMENT_ACTIVITY,
    RECONCILE_RUN_ACTIVITY,
    STATEMENT_ACTION_PREFIX,
    STATEMENT_ACTION_WORKFLOW,
    StatementAct,
    StatementActionRequest,
    StatementCall,
    StatementOutcome,
    StatementUpload,
)
from sagas.reconcile._store import ActionCounts

__all__ = [
    "CLOSED_STATUSES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "EXPLAIN_BREAK_ACTIVITY",
    "IMPORT_STATEMENT_ACTIVITY",
    "RECONCILE_RUN_ACTIVITY",
    "STATEMENT_ACTION_PREFIX",
    "STATEMENT_ACTION_WORKFLOW",
    "AccountingError",
    "ActionCounts",
    "ActionRows",
    "Balance",
    "BreakKind",
    "BreakStatus",
    "BreakView",
    "CsvMapping",
    "ImportResult",
    "LineDirection",
    "LineKind",
    "LineMatch",
    "LineRefusal",
    "LineStatus",
    "LineTransaction",
    "MovementStatus",
    "PeriodBreak",
    "PeriodFile",
    "PeriodLine",
    "PeriodScope",
    "PeriodStatement",
    "PeriodTransaction",
    "ProofItem",
    "ProofOfCash",
    "RailMovement",
    "ReconcilePolicy",
    "Reconciliation",
    "ReconciliationPeriod",
    "RowsOfAction",
    "RunResult",
    "Statement",
    "StatementAccount",
    "StatementAct",
    "StatementActionRequest",
    "StatementCall",
    "StatementFormat",
    "StatementLine",
    "StatementOutcome",
    "StatementRules",
    "StatementUpload",
    "metadata",
    "parse_fees",
    "policy_facts",
    "policy_from",
    "rail_movements",
    "read_statement",
    "reconciliation_period",
    "reconciliation_rows",
    "refuse_size",
]
