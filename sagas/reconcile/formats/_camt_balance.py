"""The balances (`Bal`) of a camt statement: which is the opening and which the closing one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from xml.etree.ElementTree import Element

from sagas.foundations import InvalidRequestError, Money, currency
from sagas.reconcile.formats._balance import stated_balance
from sagas.reconcile.formats._camt_entry import missing, text
from sagas.reconcile.formats._statement import Balance
from sagas.reconcile.formats._statement_amount import statement_money

_OPENING = ("OPBD", "PRCD")
"""Opening booked, else the previous day's closing booked: both are what the lines start from."""
_CLOSING = ("CLBD",)
_KNOWN = frozenset({*_OPENING, *_CLOSING, "CLAV", "ITBD", "ITAV", "OPAV", "FWAV", "INFO"})
_DIRECTIONS = {"CRDT": False, "DBIT": True}


@dataclass(frozen=True, kw_only=True)
class _Stated:
    code: str
    amount: Money
    debit: bool
    day: date
    field: str
    currency_field: str


def balance_currency(report: Element, tag: str) -> str | None:
    """The currency of the first balance, for a statement with neither `Acct/Ccy` nor lines."""
    for n, element in enumerate(report.findall("Bal"), 1):
        amount = element.find("Amt")
        if amount is not None and amount.get("Ccy"):
            field = f"{tag}/Bal[{n}]/Amt/@Ccy"
            return currency(amount.get("Ccy", ""), field=field).code
    return None


def camt_balances(report: Element, tag: str, code: str) -> tuple[Balance | None, Balance | None]:
    """(opening, closing) of the statement in `code`; every balance it states is read and
    refused, naming it, when it is in another currency or unreadable."""
    stated = [
        _stated(element, f"{tag}/Bal[{n}]") for n, element in enumerate(report.findall("Bal"), 1)
    ]
    balances = {
        item.code: stated_balance(
            item.amount,
            debit=item.debit,
            day=item.day,
            field=item.field,
            currency_field=item.currency_field,
            currency=code,
        )
        for item in reversed(stated)
    }
    opening = next((balances[kind] for kind in _OPENING if kind in balances), None)
    closing = next((balances[kind] for kind in _CLOSING if kind in balances), None)
    return opening, closing


def _stated(element: Element, where: str) -> _Stated:
    kind = text(element, "Tp/CdOrPrtry/Cd") or text(element, "Tp/CdOrPrtry/Prtry")
    if kind is None:
        missing(f"{where}/Tp/CdOrPrtry")
    kind = kind.upper()
    if kind not in _KNOWN:
        raise InvalidRequestError(f"{where}/Tp/CdOrPrtry", f"{kind!r} is no balance type")
    amount = element.find("Amt")
    if amount is None:
        missing(f"{where}/Amt")
    code = amount.get("Ccy") or missing(f"{where}/Amt/@Ccy")
    code = currency(code, field=f"{where}/Amt/@Ccy").code
    indicator = text(element, "CdtDbtInd") or missing(f"{where}/CdtDbtInd")
    if indicator not in _DIRECTIONS:
        raise InvalidRequestError(f"{where}/CdtDbtInd", f"{indicator!r} is neither CRDT nor DBIT")
    money = statement_money((amount.text or "").strip(), code, field=f"{where}/Amt")
    day_text = text(element, "Dt/Dt") or (text(element, "Dt/DtTm") or "")[:10]
    if not day_text:
        missing(f"{where}/Dt")
    try:
        day = date.fromisoformat(day_text)
    except ValueError as err:
        raise InvalidRequestError(f"{where}/Dt", f"{day_text!r} is no ISO date") from err
    return _Stated(
        code=kind,
        amount=money,
        debit=_DIRECTIONS[indicator],
        day=day,
        field=f"{where} ({kind})",
        currency_field=f"{where}/Amt/@Ccy",
    )
