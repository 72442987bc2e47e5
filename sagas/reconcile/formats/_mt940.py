"""SWIFT MT940 customer statements into Statements, one for each :20: of the file, parsed by the
`mt-940` library."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

import mt940

from sagas.foundations import InvalidRequestError
from sagas.reconcile.formats import _mt940_details
from sagas.reconcile.formats._kinds import mt940_kind
from sagas.reconcile.formats._mt940_balance import mt940_balances, opening_currency
from sagas.reconcile.formats._statement import (
    LineDirection,
    LineKind,
    LineTransaction,
    Statement,
    StatementFormat,
    StatementLine,
)
from sagas.reconcile.formats._statement_amount import statement_money

_TAGS = (re.compile(rb"^:20:", re.M), re.compile(rb"^:60[FM]:", re.M))
_STATEMENT = re.compile(rb"(?m)^(?=:20:)")
_TAG = re.compile(rb":\d\d[A-Z]?:")
_TRAILERS = frozenset({b"-", b"-}"})
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_NO_REFERENCE = "NONREF"
_DIRECTIONS = {
    "D": LineDirection.DEBIT,
    "C": LineDirection.CREDIT,
    # A reversal books the other way: of a debit (RD) money comes back in.
    "RD": LineDirection.CREDIT,
    "RC": LineDirection.DEBIT,
}


def looks_like_mt940(data: bytes) -> bool:
    """Whether the file has the :20: and opening balance (:60F:, or :60M: on a continued page)
    tags every MT940 statement starts with."""
    return all(tag.search(data) for tag in _TAGS)


def read_mt940(data: bytes) -> tuple[Statement, ...]:
    """Every statement of an MT940 file (each :20: to its :62F:), in order. A bad field of the
    second statement on is named with its statement (`:61:[4] of statement 2`)."""
    blocks = _blocks(data)
    if not blocks:
        raise InvalidRequestError("FILE", "holds no MT940 statement (:20:)")
    return tuple(_numbered(block, n) for n, block in enumerate(blocks, 1))


def _blocks(data: bytes) -> list[bytes]:
    """The file cut at each :20:, as the library cuts it, each without the envelope that ends
    its message and opens the next (`-}`, `{1:...}{4:`, a bank's header lines): left in, it
    would be read as the text of the statement's last :86:."""
    head, *blocks = _STATEMENT.split(data.removeprefix(_BYTE_ORDER_MARK))
    if any(_TAG.match(line) for line in head.splitlines()):
        raise InvalidRequestError("FILE", "holds MT940 fields before its first :20:")
    return [_without_trailer(block) for block in blocks]


def _without_trailer(block: bytes) -> bytes:
    lines = block.splitlines(keepends=True)
    ends = [n for n, line in enumerate(lines) if line.strip() in _TRAILERS]
    if ends and not any(_TAG.match(line) for line in lines[ends[-1] :]):
        return b"".join(lines[: ends[-1]])
    return block


def _numbered(block: bytes, n: int) -> Statement:
    try:
        return _statement(block)
    except InvalidRequestError as err:
        if n == 1:
            raise
        field = f"statement {n}" if err.field == "FILE" else f"{err.field} of statement {n}"
        raise InvalidRequestError(field, err.problem) from err


def _statement(block: bytes) -> Statement:
    try:
        (parsed,) = _parsed(block)
    except RuntimeError as err:
        raise _unparsed(err) from err
    except (ValueError, KeyError, InvalidOperation) as err:
        raise InvalidRequestError("FILE", f"is not a readable MT940 statement: {err}") from err
    header: dict[str, Any] = parsed.data
    code = opening_currency(header)
    opening, closing = mt940_balances(header, code)
    statement_id = _statement_id(header)
    lines = tuple(
        _line(transaction.data, n, code) for n, transaction in enumerate(parsed.transactions, 1)
    )
    return Statement(
        format=StatementFormat.MT940,
        statement_id=statement_id,
        account=header.get("account_identification") or _missing(":25:"),
        currency=code,
        period_start=None if opening is None else _midnight(opening.day),
        # The statement is complete up to the end of its closing balance's day.
        period_end=_midnight(closing.day + timedelta(days=1)),
        lines=lines,
        opening=opening,
        closing=closing,
    )


_ASN_LINE = mt940.tags.StatementASNB()
"""ASN Bank's :61:, whose customer reference runs to 18 characters where SWIFT allows 16."""


def _parsed(block: bytes) -> list[Any]:
    """The block as the library reads it; a :61: its standard pattern refuses is read again by
    ASN's, and refused as first reported when that fails too."""
    try:
        return _parse(block, None)
    except RuntimeError as err:
        if not (len(err.args) == 3 and getattr(err.args[1], "id", None) == _ASN_LINE.id):
            raise
        try:
            return _parse(block, {_ASN_LINE.id: _ASN_LINE})
        except RuntimeError:
            raise err from None


def _parse(block: bytes, tags: dict[int | str, Any] | None) -> list[Any]:
    return list(
        mt940.parse_statements(
            block,
            processors=_mt940_details.RAW_DETAILS,
            tags=tags,
            options=_mt940_details.OPTIONS,
        )
    )


def _unparsed(err: RuntimeError) -> InvalidRequestError:
    """The library's error names the tag and the text it could not match: so does ours."""
    if len(err.args) == 3 and hasattr(err.args[1], "id"):
        return InvalidRequestError(f":{err.args[1].id}:", f"{err.args[2]!r} does not parse")
    return InvalidRequestError("FILE", f"is not a readable MT940 statement: {err}")


def _statement_id(header: dict[str, Any]) -> str:
    reference = header.get("transaction_reference") or _missing(":20:")
    number, sequence = header.get("statement_number"), header.get("sequence_number")
    if number is None:
        return str(reference)
    return f"{reference}/{number}" + (f"/{sequence}" if sequence else "")


def _line(data: dict[str, Any], n: int, code: str) -> StatementLine:
    field = f":61:[{n}]"
    status = str(data.get("status") or "").upper()
    direction = _DIRECTIONS.get(status)
    if direction is None:
        raise InvalidRequestError(field, f"debit/credit mark {status!r} is none of D, C, RD, RC")
    amount: Decimal = abs(data["amount"].amount)
    value_date: date = data["date"]
    bank = (data.get("bank_reference") or "").strip()
    details = _mt940_details.line_details(data)
    reference = details.end_to_end_id
    money = statement_money(format(amount, "f"), code, field=f"{field} amount")
    kind = mt940_kind(status, str(data.get("id") or ""), direction, returned=details.states_return)
    reason = details.return_reason if kind is LineKind.RETURN else None
    return StatementLine(
        bank_reference=None if bank in {"", _NO_REFERENCE} else bank,
        end_to_end_id=reference,
        direction=direction,
        amount=money,
        booking_date=_plain(data.get("entry_date") or value_date),
        value_date=_plain(value_date),
        kind=kind,
        description=details.description,
        # A return names the payout it returns and why: kept as its one transaction.
        transactions=(LineTransaction(end_to_end_id=reference, amount=money, return_reason=reason),)
        if kind is LineKind.RETURN
        else (),
    )


def _plain(day: date) -> date:
    """The library's date subclass as a plain date, so lines compare and serialise as dates."""
    return date(day.year, day.month, day.day)


def _midnight(day: date) -> datetime:
    return datetime.combine(_plain(day), time(), tzinfo=UTC)


def _missing(tag: str) -> NoReturn:
    raise InvalidRequestError(tag, "is missing")
