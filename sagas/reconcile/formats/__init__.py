"""The statement readers: camt.053, MT940 and mapped CSV files read into one Statement model,
within the file size limits."""

from sagas.reconcile.formats._balance import moved, unbalanced
from sagas.reconcile.formats._csv_mapping import CsvMapping
from sagas.reconcile.formats._csv_statement import read_csv, read_csv_statements
from sagas.reconcile.formats._kinds import NEVER_BY_AMOUNT, kinds_agree, reason_text
from sagas.reconcile.formats._limits import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    MAX_STATEMENTS,
    refuse_size,
    refuse_statements,
)
from sagas.reconcile.formats._mt940_details import (
    OPTIONS,
    RAW_DETAILS,
    LineDetails,
    end_to_end_id,
    line_details,
    return_reason,
)
from sagas.reconcile.formats._mt940_structured import structured_details
from sagas.reconcile.formats._read import read_statement, read_statements
from sagas.reconcile.formats._statement import (
    Balance,
    LineDirection,
    LineKind,
    LineTransaction,
    Statement,
    StatementFormat,
    StatementLine,
)
from sagas.reconcile.formats._statement_amount import statement_money

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "MAX_STATEMENTS",
    "NEVER_BY_AMOUNT",
    "OPTIONS",
    "RAW_DETAILS",
    "Balance",
    "CsvMapping",
    "LineDetails",
    "LineDirection",
    "LineKind",
    "LineTransaction",
    "Statement",
    "StatementFormat",
    "StatementLine",
    "end_to_end_id",
    "kinds_agree",
    "line_details",
    "moved",
    "read_csv",
    "read_csv_statements",
    "read_statement",
    "read_statements",
    "reason_text",
    "refuse_size",
    "refuse_statements",
    "return_reason",
    "statement_money",
    "structured_details",
    "unbalanced",
]
