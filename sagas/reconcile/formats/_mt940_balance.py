"""The balances of an MT940 statement: :60F:/:60M: opening, :62F:/:62M: closing, :64: available."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sagas.foundations import InvalidRequestError, currency
from sagas.reconcile.formats._balance import stated_balance
from sagas.reconcile.formats._statement import Balance
from sagas.reconcile.formats._statement_amount import statement_money

_OPENING = (("final_opening_balance", ":60F:"), ("intermediate_opening_balance", ":60M:"))
_CLOSING = (("final_closing_balance", ":62F:"), ("intermediate_closing_balance", ":62M:"))
_AVAILABLE = (("available_balance", ":64:"),)


def opening_currency(header: dict[str, Any]) -> str:
    """The statement's currency: its opening balance's (:60F:, or :60M: on a continued page)."""
    for key, tag in _OPENING:
        found = header.get(key)
        if found is not None:
            if found.amount.currency is None:
                raise InvalidRequestError(tag, "states no currency")
            return currency(found.amount.currency, field=tag).code
    raise InvalidRequestError(":60F:", "is missing (nor is there a :60M:)")


def mt940_balances(header: dict[str, Any], code: str) -> tuple[Balance | None, Balance]:
    """(opening, closing) in `code`; each balance the statement states (:64: too) is refused,
    naming its tag, when it is in another currency."""
    opening = _first(header, _OPENING, code)
    closing = _first(header, _CLOSING, code)
    _first(header, _AVAILABLE, code)
    if closing is None:
        raise InvalidRequestError(":62F:", "is missing (nor is there a :62M:)")
    return opening, closing


def _first(header: dict[str, Any], tags: tuple[tuple[str, str], ...], code: str) -> Balance | None:
    for key, tag in tags:
        found = header.get(key)
        if found is not None:
            return _balance(found, tag, code)
    return None


def _balance(found: Any, tag: str, code: str) -> Balance:
    stated = found.amount.currency
    if stated is None:
        raise InvalidRequestError(tag, "states no currency")
    mark = str(found.status or "").upper()
    if mark not in {"C", "D"}:
        raise InvalidRequestError(tag, f"debit/credit mark {mark!r} is neither C nor D")
    value: Decimal = abs(found.amount.amount)
    amount = statement_money(format(value, "f"), currency(stated, field=tag).code, field=tag)
    day: date = found.date
    return stated_balance(
        amount,
        debit=mark == "D",
        day=date(day.year, day.month, day.day),
        field=tag,
        currency_field=tag,
        currency=code,
    )
