"""One entry point for every statement file: the format is told by the content, not the name."""

from __future__ import annotations

from sagas.foundations import InvalidRequestError
from sagas.reconcile._camt import read_camt
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._csv_statement import read_csv
from sagas.reconcile._mt940 import looks_like_mt940, read_mt940
from sagas.reconcile._statement import Statement

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def read_statement(data: bytes, *, csv_mapping: CsvMapping | None = None) -> Statement:
    """The statement in a rail's file: camt.053, camt.054 or MT940 by their content, a CSV when
    `csv_mapping` says how to read it. Anything else is refused, naming FILE; a bad field is
    refused naming it."""
    if data.removeprefix(_BYTE_ORDER_MARK).lstrip().startswith(b"<"):
        return read_camt(data)
    if looks_like_mt940(data):
        return read_mt940(data)
    if csv_mapping is not None:
        return read_csv(data, csv_mapping)
    raise InvalidRequestError(
        "FILE", "is no camt.053, camt.054 or MT940 statement; for a CSV, give its column mapping"
    )
