"""A CSV statement, one line a row, read by its CsvMapping. Rows are numbered as a spreadsheet
shows them: the header is row 1."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from datetime import date, datetime

from sagas.foundations import InvalidRequestError, Money, currency, parse_money
from sagas.reconcile._csv_mapping import CsvMapping
from sagas.reconcile._statement import (
    LineDirection,
    LineKind,
    Statement,
    StatementFormat,
    StatementLine,
)

_Row = dict[str, str]


def read_csv(data: bytes, mapping: CsvMapping) -> Statement:
    """The statement the CSV's rows state, read as `mapping` says."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidRequestError("FILE", f"is not UTF-8 text: {err}") from err
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=mapping.delimiter)
    try:
        _check_header(reader.fieldnames or [], mapping)
        rows = [_cells(row, n) for n, row in enumerate(reader, 2)]
    except csv.Error as err:
        raise InvalidRequestError("FILE", f"is not readable as CSV: {err}") from err
    code = mapping.currency or _same(rows, mapping.currency_column)
    code = currency(code, field=mapping.currency_column or "currency").code
    return Statement(
        format=StatementFormat.CSV,
        statement_id=mapping.statement_id or f"csv-{hashlib.sha256(data).hexdigest()[:16]}",
        account=mapping.account or _same(rows, mapping.account_column),
        currency=code,
        period_start=None,
        period_end=None,
        lines=tuple(_line(row, n, mapping, code) for n, row in enumerate(rows, 2)),
    )


def _check_header(header: Sequence[str], mapping: CsvMapping) -> None:
    for column in mapping.columns():
        if column not in header:
            named = ", ".join(header) or "none"
            raise InvalidRequestError(column, f"is no column of the file (its columns: {named})")


def _cells(row: dict[str | None, str | None], n: int) -> _Row:
    if None in row or None in row.values():
        raise InvalidRequestError("FILE", f"row {n} has not as many cells as the header")
    return {str(name): (value or "").strip() for name, value in row.items()}


def _same(rows: Sequence[_Row], column: str | None) -> str:
    """The one value `column` holds on every row."""
    assert column is not None, "CsvMapping checks that a column or a fixed value is given"
    if not rows:
        raise InvalidRequestError(column, "has no row to read it from: give it in the mapping")
    first = _required(rows[0], 2, column)
    for n, row in enumerate(rows, 2):
        if row[column] != first:
            raise InvalidRequestError(_where(column, n), f"{row[column]!r} differs from row 2")
    return first


def _line(row: _Row, n: int, mapping: CsvMapping, statement_currency: str) -> StatementLine:
    code = statement_currency
    if mapping.currency_column is not None:
        field = _where(mapping.currency_column, n)
        code = currency(row[mapping.currency_column], field=field).code
    amount, direction = _amount(row, n, mapping, code)
    booking = _date(row, n, mapping, mapping.booking_date_column)
    value = mapping.value_date_column
    return StatementLine(
        bank_reference=_optional(row, mapping.bank_reference_column),
        end_to_end_id=_optional(row, mapping.end_to_end_id_column),
        direction=direction,
        amount=amount,
        booking_date=booking,
        value_date=booking if value is None else _date(row, n, mapping, value),
        kind=_kind(row, n, mapping.kind_column),
        fee=_fee(row, n, mapping, code),
        description=_optional(row, mapping.description_column) or "",
    )


def _amount(row: _Row, n: int, mapping: CsvMapping, code: str) -> tuple[Money, LineDirection]:
    column = mapping.amount_column
    text = _required(row, n, column).replace(mapping.decimal_separator, ".")
    if mapping.direction_column is None:
        direction = LineDirection.DEBIT if text.startswith("-") else LineDirection.CREDIT
        text = text.removeprefix("-").removeprefix("+")
    else:
        direction = _direction(row, n, mapping)
    return parse_money(text, code, field=_where(column, n), allow_zero=True), direction


def _direction(row: _Row, n: int, mapping: CsvMapping) -> LineDirection:
    assert mapping.direction_column is not None
    cell = row[mapping.direction_column]
    if cell in mapping.debit_values:
        return LineDirection.DEBIT
    if cell in mapping.credit_values:
        return LineDirection.CREDIT
    known = ", ".join(mapping.debit_values + mapping.credit_values)
    raise InvalidRequestError(_where(mapping.direction_column, n), f"{cell!r} is none of {known}")


def _date(row: _Row, n: int, mapping: CsvMapping, column: str) -> date:
    cell = _required(row, n, column)
    try:
        return datetime.strptime(cell, mapping.date_format).date()
    except ValueError as err:
        problem = f"{cell!r} is no date in the format {mapping.date_format!r}"
        raise InvalidRequestError(_where(column, n), problem) from err


def _kind(row: _Row, n: int, column: str | None) -> LineKind:
    cell = "" if column is None else row[column].lower()
    if not cell:
        return LineKind.OTHER
    try:
        return LineKind(cell)
    except ValueError as err:
        known = ", ".join(kind.value for kind in LineKind)
        raise InvalidRequestError(_where(str(column), n), f"{cell!r} is none of {known}") from err


def _fee(row: _Row, n: int, mapping: CsvMapping, code: str) -> Money | None:
    cell = _optional(row, mapping.fee_column)
    if cell is None or mapping.fee_column is None:
        return None
    text = cell.replace(mapping.decimal_separator, ".")
    return parse_money(text, code, field=_where(mapping.fee_column, n), allow_zero=True)


def _required(row: _Row, n: int, column: str) -> str:
    if not row[column]:
        raise InvalidRequestError(_where(column, n), "is empty")
    return row[column]


def _optional(row: _Row, column: str | None) -> str | None:
    return (row[column] or None) if column is not None else None


def _where(column: str, n: int) -> str:
    return f"{column} (row {n})"
