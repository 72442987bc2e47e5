"""Matching: the ledger's rail movements, the matching policy and rules, and the matcher that
pairs each statement line with its movement or names its break."""

from sagas.reconcile.matching._batch import BATCH_METHOD
from sagas.reconcile.matching._booked import BookedLine, BookedTransaction, Finding
from sagas.reconcile.matching._breaks import CLOSED_STATUSES, BreakKind, BreakStatus, BreakView
from sagas.reconcile.matching._matcher import match
from sagas.reconcile.matching._matching_rules import (
    AmountTolerance,
    MatchingRule,
    MatchingRules,
    Requirement,
)
from sagas.reconcile.matching._movements import RailMovement, rail_movements
from sagas.reconcile.matching._policy import ReconcilePolicy, parse_fees, policy_from
from sagas.reconcile.matching._rules import StatementRules, policy_facts
from sagas.reconcile.matching._rules_file import load_rules, parse_rules

__all__ = [
    "BATCH_METHOD",
    "CLOSED_STATUSES",
    "AmountTolerance",
    "BookedLine",
    "BookedTransaction",
    "BreakKind",
    "BreakStatus",
    "BreakView",
    "Finding",
    "MatchingRule",
    "MatchingRules",
    "RailMovement",
    "ReconcilePolicy",
    "Requirement",
    "StatementRules",
    "load_rules",
    "match",
    "parse_fees",
    "parse_rules",
    "policy_facts",
    "policy_from",
    "rail_movements",
]
