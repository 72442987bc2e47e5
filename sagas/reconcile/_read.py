"""One entry point for every statement file: the format is told by the content, not the name."""

from __future__ import annotations

from sagas.foundations import InvalidRequestError
from sagas.reconcile._camt import read_camt
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._csv_statement import read_csv
from sagas.reconcile._mt940 import looks_like_mt940, read_mt940
from sagas.reconcile._rules import refuse_lines
from sagas.reconcile._statement import Statement

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def read_statement(
    data: bytes, *, csv_mapping: CsvMapping | None = None, max_lines: int | None = None
) -> Statement:
    """The statement in a rail's file: camt.053, camt.054 or MT940 by their content, a CSV when
    `csv_mapping` says how to read it. Anything else is refused, naming FILE; a bad field is
    refused naming it; more than `max_lines` lines are refused naming the limit (camt as soon
    as the entry over it is read; MT940 and CSV, held whole in memory, once read)."""
    if data.removeprefix(_BYTE_ORDER_MARK).lstrip().startswith(b"<"):
        return read_camt(data, max_lines)
    if looks_like_mt940(data):
        return _within(read_mt940(data), max_lines)
    if csv_mapping is not None:
        return _within(read_csv(data, csv_mapping), max_lines)
    raise InvalidRequestError(
        "FILE", "is no camt.053, camt.054 or MT940 statement; for a CSV, give its column mapping"
    )


def _within(statement: Statement, max_lines: int | None) -> Statement:
    if max_lines is not None:
        refuse_lines(len(statement.lines), max_lines)
    return statement
