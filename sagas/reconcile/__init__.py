"""Reconciliation: statements from the rails, matched against the ledger's rail movements;
every difference a break with a kind and a lifecycle."""

from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._read import read_statement
from sagas.reconcile._statement import (
    LineDirection,
    LineKind,
    Statement,
    StatementFormat,
    StatementLine,
)

__all__ = [
    "CsvMapping",
    "LineDirection",
    "LineKind",
    "Statement",
    "StatementFormat",
    "StatementLine",
    "read_statement",
]
