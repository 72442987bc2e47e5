"""A CSV statement, one line a row, read by its CsvMapping. Rows are numbered as a spreadsheet
shows the file: its first line is row 1, so the header is row `preamble_lines + 1`."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from sagas.foundations import InvalidRequestError, Money, currency
from sagas.reconcile.formats._csv_amount import CellAmount, cell_amount
from sagas.reconcile.formats._csv_mapping import CsvMapping
from sagas.reconcile.formats._statement import (
    LineDirection,
    LineKind,
    Statement,
    StatementFormat,
    StatementLine,
)
from sagas.reconcile.formats._statement_amount import statement_money

_Row = dict[str, str]


@dataclass
class _Group:
    """The rows of one account and currency, and the first of them."""

    first_row: int
    lines: list[StatementLine] = field(default_factory=list)


def read_csv(data: bytes, mapping: CsvMapping) -> Statement:
    """The one statement the CSV's rows state, read as `mapping` says; a file whose rows hold
    several accounts or currencies is refused, naming the first row of the second."""
    statements = _groups(data, mapping)
    if len(statements) > 1:
        (first, _), (second, group) = list(statements.items())[:2]
        column = mapping.currency_column if first[1] != second[1] else mapping.account_column
        shown = second[1] if first[1] != second[1] else second[0]
        raise InvalidRequestError(
            _where(str(column), group.first_row),
            f"{shown!r} differs from the rows before: the file holds several statements",
        )
    return _statements(data, mapping, statements)[0]


def read_csv_statements(data: bytes, mapping: CsvMapping) -> tuple[Statement, ...]:
    """One statement for each account and currency the CSV's rows hold, in the order they first
    appear; a file of one account and currency is the statement `read_csv` reads."""
    return _statements(data, mapping, _groups(data, mapping))


def _statements(
    data: bytes, mapping: CsvMapping, groups: dict[tuple[str, str], _Group]
) -> tuple[Statement, ...]:
    base = mapping.statement_id or f"csv-{hashlib.sha256(data).hexdigest()[:16]}"
    return tuple(
        Statement(
            format=StatementFormat.CSV,
            statement_id=base if len(groups) == 1 else f"{base}/{account}/{code}",
            account=account,
            currency=code,
            period_start=None,
            period_end=None,
            lines=tuple(group.lines),
        )
        for (account, code), group in groups.items()
    )


def _groups(data: bytes, mapping: CsvMapping) -> dict[tuple[str, str], _Group]:
    groups: dict[tuple[str, str], _Group] = {}
    header_row = mapping.preamble_lines + 1
    for n, row in _rows(data, mapping):
        key = (_account(row, n, mapping), _currency(row, n, mapping))
        group = groups.setdefault(key, _Group(first_row=n))
        group.lines.append(_line(row, n, mapping, key[1]))
    if not groups:
        if mapping.account is None or mapping.currency is None:
            column = mapping.account_column or mapping.currency_column
            problem = f"has no row after the header (row {header_row}) to read it from"
            raise InvalidRequestError(str(column), f"{problem}: give it in the mapping")
        groups[(mapping.account, currency(mapping.currency).code)] = _Group(first_row=header_row)
    return groups


def _rows(data: bytes, mapping: CsvMapping) -> Iterator[tuple[int, _Row]]:
    """(row number, cells by column) of each row after the header; blank rows are skipped."""
    utf8 = codecs.lookup(mapping.encoding).name == "utf-8"
    try:
        text = data.decode("utf-8-sig" if utf8 else mapping.encoding)
    except UnicodeDecodeError as err:
        raise InvalidRequestError("FILE", f"is not {mapping.encoding} text: {err}") from err
    source = io.StringIO(text, newline="")
    for _ in range(mapping.preamble_lines):
        if not source.readline():
            break
    header_row = mapping.preamble_lines + 1
    reader = csv.reader(source, delimiter=mapping.delimiter)
    try:
        header = [name.strip() for name in next(reader, [])]
        _check_header(header, header_row, mapping)
        for n, cells in enumerate(reader, header_row + 1):
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                problem = (
                    f"row {n} has {len(cells)} cells, the header (row {header_row}) {len(header)}"
                )
                raise InvalidRequestError("FILE", problem)
            yield n, {name: cell.strip() for name, cell in zip(header, cells, strict=True)}
    except csv.Error as err:
        raise InvalidRequestError("FILE", f"is not readable as CSV: {err}") from err


def _check_header(header: Sequence[str], row: int, mapping: CsvMapping) -> None:
    for column in mapping.columns():
        if column not in header:
            named = ", ".join(header) or "none"
            where = f"(row {row}; its columns: {named})"
            raise InvalidRequestError(column, f"is no column of the header {where}")
        if header.count(column) > 1:
            raise InvalidRequestError(column, f"is twice in the header (row {row})")


def _account(row: _Row, n: int, mapping: CsvMapping) -> str:
    if mapping.account_column is None:
        assert mapping.account is not None, "CsvMapping checks that one of the two is given"
        return mapping.account
    return _required(row, n, mapping.account_column)


def _currency(row: _Row, n: int, mapping: CsvMapping) -> str:
    if mapping.currency_column is None:
        assert mapping.currency is not None, "CsvMapping checks that one of the two is given"
        return currency(mapping.currency).code
    column = mapping.currency_column
    return currency(_required(row, n, column), field=_where(column, n)).code


def _line(row: _Row, n: int, mapping: CsvMapping, code: str) -> StatementLine:
    amount, direction = _amount(row, n, mapping, code)
    booking = _date(row, n, mapping, mapping.booking_date_column)
    value = mapping.value_date_column
    return StatementLine(
        bank_reference=_optional(row, mapping.bank_reference_column),
        end_to_end_id=_reference(_optional(row, mapping.end_to_end_id_column)),
        direction=direction,
        amount=amount,
        booking_date=booking,
        value_date=booking if value is None else _date(row, n, mapping, value),
        kind=_kind(row, n, mapping.kind_column),
        fee=_fee(row, n, mapping, code),
        description=_optional(row, mapping.description_column) or "",
    )


def _amount(row: _Row, n: int, mapping: CsvMapping, code: str) -> tuple[Money, LineDirection]:
    if mapping.split_amounts:
        return _split_amount(row, n, mapping, code)
    column = str(mapping.amount_column)
    read = _cell(row, n, mapping, column)
    if mapping.direction_column is None:
        direction = LineDirection.DEBIT if read.negative else LineDirection.CREDIT
    elif read.negative:
        problem = (
            f"{row[column]!r} is signed, and {mapping.direction_column!r} states the direction"
        )
        raise InvalidRequestError(_where(column, n), problem)
    else:
        direction = _direction(row, n, mapping)
    return statement_money(read.plain, code, field=_where(column, n)), direction


def _split_amount(row: _Row, n: int, mapping: CsvMapping, code: str) -> tuple[Money, LineDirection]:
    """The one of the debit and credit columns that holds the row's amount."""
    filled: list[tuple[Money, LineDirection]] = []
    for column, direction in (
        (str(mapping.debit_amount_column), LineDirection.DEBIT),
        (str(mapping.credit_amount_column), LineDirection.CREDIT),
    ):
        if not row[column]:
            continue
        read = _cell(row, n, mapping, column)
        if read.signed and read.negative != (direction is LineDirection.DEBIT):
            problem = f"{row[column]!r}: its sign is not that of a {direction.value}"
            raise InvalidRequestError(_where(column, n), problem)
        filled.append((statement_money(read.plain, code, field=_where(column, n)), direction))
    moving = [item for item in filled if item[0].minor] or filled
    if len(moving) != 1:
        columns = f"{mapping.debit_amount_column!r} and {mapping.credit_amount_column!r}"
        problem = "hold no amount" if not filled else "both hold an amount: a row's is in one"
        where = f"row {n}, columns {columns}"
        raise InvalidRequestError(where, problem)
    return moving[0]


def _cell(row: _Row, n: int, mapping: CsvMapping, column: str) -> CellAmount:
    return cell_amount(
        _required(row, n, column),
        _where(column, n),
        decimal=mapping.decimal_separator,
        thousands=mapping.thousands_separator,
    )


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
    column = mapping.fee_column
    if column is None or not row[column]:
        return None
    read = _cell(row, n, mapping, column)
    if read.negative:
        raise InvalidRequestError(_where(column, n), f"{row[column]!r}: a fee is given unsigned")
    return statement_money(read.plain, code, field=_where(column, n))


def _required(row: _Row, n: int, column: str) -> str:
    if not row[column]:
        raise InvalidRequestError(_where(column, n), "is empty")
    return row[column]


_PLACEHOLDERS = frozenset({"NOTPROVIDED", "NONREF"})
"""What exports write where the payer gave no end-to-end id (SEPA's NOTPROVIDED, SWIFT's NONREF)."""


def _reference(cell: str | None) -> str | None:
    if cell is None or cell.strip().upper() in _PLACEHOLDERS:
        return None
    return cell.strip()


def _optional(row: _Row, column: str | None) -> str | None:
    return (row[column] or None) if column is not None else None


def _where(column: str, n: int) -> str:
    return f'row {n}, column "{column}"'
