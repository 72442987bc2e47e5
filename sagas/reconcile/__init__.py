"""Reconciliation: statements from the rails, matched against the ledger's rail movements;
every difference a break with a kind and a lifecycle."""

from sagas.reconcile._statement import (
    LineDirection,
    LineKind,
    Statement,
    StatementFormat,
    StatementLine,
)

__all__ = [
    "LineDirection",
    "LineKind",
    "Statement",
    "StatementFormat",
    "StatementLine",
]
