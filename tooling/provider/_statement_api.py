"""The statement endpoints' work, apart from the HTTP plumbing: read the query or body, answer
with the file or a JSON error."""

from __future__ import annotations

from datetime import UTC, date, datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs

from sagas.foundations import InvalidRequestError, currency, parse_money
from tooling.provider._book import Book
from tooling.provider._journal import Direction
from tooling.provider._statement import DayStatement, StatementFormat, render

_DIRECTIONS = {"debit": Direction.DEBIT, "credit": Direction.CREDIT}


class BadStatementRequestError(ValueError):
    """A statement query or line the simulator refuses to read (400)."""


def statement_file(book: Book, query: str) -> tuple[bytes, str]:
    """The file and its content type for `date`, `format` and `currency` in the query."""
    params = {name: values[-1] for name, values in parse_qs(query).items()}
    try:
        fmt = StatementFormat(params.get("format", StatementFormat.CAMT053.value))
    except ValueError as err:
        known = ", ".join(f.value for f in StatementFormat)
        raise BadStatementRequestError(f"format must be one of {known}") from err
    code = _currency(params.get("currency", "EUR"))
    try:
        day = date.fromisoformat(params["date"]) if "date" in params else None
    except ValueError as err:
        raise BadStatementRequestError("date must be YYYY-MM-DD") from err
    day, opening, lines = book.statement_of(day, code)
    statement = DayStatement(
        day=day,
        currency=code,
        opening=opening,
        lines=tuple(lines),
        created_at=datetime.now(UTC).replace(microsecond=0),
    )
    return render(statement, fmt), fmt.content_type


def add_statement_line(book: Book, body: Any) -> tuple[HTTPStatus, dict[str, Any]]:
    """Book a line for {key, amount, currency, direction?} that no payout of the book explains:
    a settlement the caller's ledger lacks."""
    if not isinstance(body, dict) or set(body) - {"key", "amount", "currency", "direction"}:
        raise BadStatementRequestError("a line is {key, amount, currency, direction?}")
    key, amount = body.get("key"), body.get("amount")
    if not isinstance(key, str) or not key or not isinstance(amount, str):
        raise BadStatementRequestError("key and amount must be non-empty strings")
    direction = _DIRECTIONS.get(body.get("direction", "debit"))
    if direction is None:
        raise BadStatementRequestError("direction must be debit or credit")
    code = _currency(body.get("currency"))
    try:
        money = parse_money(amount, code)
    except InvalidRequestError as err:
        raise BadStatementRequestError(str(err)) from err
    line = book.book_line(key, money, direction)
    return HTTPStatus.CREATED, {
        "reference": line.reference,
        "key": line.key,
        "amount": line.amount.amount_text(),
        "currency": code,
        "direction": body.get("direction", "debit"),
        "booked_at": line.booked_at.isoformat(),
    }


def _currency(code: Any) -> str:
    try:
        return currency(code if isinstance(code, str) else "").code
    except InvalidRequestError as err:
        raise BadStatementRequestError(str(err)) from err
