"""One entry point for every statement file: the format is told by the content, not the name."""

from __future__ import annotations

from sagas.foundations import InvalidRequestError
from sagas.reconcile.formats._camt import read_camt
from sagas.reconcile.formats._csv_mapping import CsvMapping
from sagas.reconcile.formats._csv_statement import read_csv_statements
from sagas.reconcile.formats._limits import refuse_lines
from sagas.reconcile.formats._mt940 import looks_like_mt940, read_mt940
from sagas.reconcile.formats._statement import Statement

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def read_statements(
    data: bytes, *, csv_mapping: CsvMapping | None = None, max_lines: int | None = None
) -> tuple[Statement, ...]:
    """Every statement in a rail's file, in the file's order (at least one): each `Stmt`,
    `Rpt` or `Ntfctn` of a camt.052, 053 or 054, each :20: block of an MT940, by their
    content; a CSV when `csv_mapping` says how to read it. Anything else is refused, naming
    FILE; a bad field is refused naming it, and from the second statement on its statement
    (`Stmt[2]/Ntry[3]/Amt`, `:61:[4] of statement 2`); more than `max_lines` lines in the
    file are refused naming the limit (camt as soon as the entry over it is read; MT940 and
    CSV, held whole in memory, once read)."""
    if data.removeprefix(_BYTE_ORDER_MARK).lstrip().startswith(b"<"):
        return read_camt(data, max_lines)
    if looks_like_mt940(data):
        return _within(read_mt940(data), max_lines)
    if csv_mapping is not None:
        return _within(read_csv_statements(data, csv_mapping), max_lines)
    problem = "is no camt.052, 053, 054 or MT940 statement; for a CSV, give its column mapping"
    raise InvalidRequestError("FILE", problem)


def read_statement(
    data: bytes, *, csv_mapping: CsvMapping | None = None, max_lines: int | None = None
) -> Statement:
    """The one statement of a rail's file, read as `read_statements` reads it; a file holding
    several is refused, naming FILE: `read_statements` reads them all."""
    statements = read_statements(data, csv_mapping=csv_mapping, max_lines=max_lines)
    if len(statements) > 1:
        problem = f"holds {len(statements)} statements: read_statements reads each of them"
        raise InvalidRequestError("FILE", problem)
    return statements[0]


def _within(statements: tuple[Statement, ...], max_lines: int | None) -> tuple[Statement, ...]:
    if max_lines is not None:
        refuse_lines(sum(len(statement.lines) for statement in statements), max_lines)
    return statements
