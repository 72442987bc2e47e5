"""Reconciliation: statements from the rails, matched against the ledger's rail movements;
every difference a break with a kind and a lifecycle."""

from sagas.reconcile._breaks import CLOSED_STATUSES, BreakKind, BreakStatus, BreakView
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._dry_run import (
    ClosedBreak,
    DryRun,
    Proposal,
    ProposedBreak,
    ProposedLine,
    ProposedMatch,
    dry_run,
)
from sagas.reconcile._line_accounting import AccountingError, LineRefusal, StatementAccount
from sagas.reconcile._matching_rules import (
    AmountTolerance,
    MatchingRule,
    MatchingRules,
    Requirement,
)
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
from sagas.reconcile._read import read_statement, read_statements
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
from sagas.reconcile._rules_file import load_rules, parse_rules
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
    DRY_RUN_ACTIVITY,
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
    "DRY_RUN_ACTIVITY",
    "EXPLAIN_BREAK_ACTIVITY",
    "IMPORT_STATEMENT_ACTIVITY",
    "RECONCILE_RUN_ACTIVITY",
    "STATEMENT_ACTION_PREFIX",
    "STATEMENT_ACTION_WORKFLOW",
    "AccountingError",
    "ActionCounts",
    "ActionRows",
    "AmountTolerance",
    "Balance",
    "BreakKind",
    "BreakStatus",
    "BreakView",
    "ClosedBreak",
    "CsvMapping",
    "DryRun",
    "ImportResult",
    "LineDirection",
    "LineKind",
    "LineMatch",
    "LineRefusal",
    "LineStatus",
    "LineTransaction",
    "MatchingRule",
    "MatchingRules",
    "MovementStatus",
    "PeriodBreak",
    "PeriodFile",
    "PeriodLine",
    "PeriodScope",
    "PeriodStatement",
    "PeriodTransaction",
    "ProofItem",
    "ProofOfCash",
    "Proposal",
    "ProposedBreak",
    "ProposedLine",
    "ProposedMatch",
    "RailMovement",
    "ReconcilePolicy",
    "Reconciliation",
    "ReconciliationPeriod",
    "Requirement",
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
    "dry_run",
    "load_rules",
    "metadata",
    "parse_fees",
    "parse_rules",
    "policy_facts",
    "policy_from",
    "rail_movements",
    "read_statement",
    "read_statements",
    "reconciliation_period",
    "reconciliation_rows",
    "refuse_size",
]
