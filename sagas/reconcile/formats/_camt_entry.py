"""One camt entry (Ntry) as a statement line, and the reading of camt elements."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import NoReturn
from xml.etree.ElementTree import Element

from sagas.foundations import InvalidRequestError, Money, currency
from sagas.reconcile.formats._kinds import camt_kind
from sagas.reconcile.formats._statement import (
    LineDirection,
    LineKind,
    LineTransaction,
    StatementLine,
)
from sagas.reconcile.formats._statement_amount import statement_money

_DIRECTIONS = {"DBIT": LineDirection.DEBIT, "CRDT": LineDirection.CREDIT}
_NOT_BOOKED = frozenset({"PDNG", "INFO", "FUTR"})
_NOT_PROVIDED = "NOTPROVIDED"


def is_booked(entry: Element) -> bool:
    """Whether the entry is booked: pending and information-only entries are no lines."""
    # Sts is a bare code up to 001.06 and Sts/Cd from 001.07.
    return (text(entry, "Sts/Cd") or text(entry, "Sts")) not in _NOT_BOOKED


def entry_line(entry: Element, where: str) -> StatementLine:
    """The line an entry states; `where` names it in errors. Its bank reference is AcctSvcrRef
    or NtryRef, None when it has neither."""
    details = entry.findall("NtryDtls/TxDtls")
    booking = (
        _date(entry, "BookgDt", where)
        or _date(entry, "ValDt", where)
        or missing(f"{where}/BookgDt")
    )
    direction = _DIRECTIONS.get(text(entry, "CdtDbtInd") or "")
    if direction is None:
        raise InvalidRequestError(f"{where}/CdtDbtInd", "must be DBIT or CRDT")
    return StatementLine(
        bank_reference=text(entry, "AcctSvcrRef") or text(entry, "NtryRef"),
        end_to_end_id=_end_to_end_id(details),
        direction=direction,
        amount=_money(entry.find("Amt"), f"{where}/Amt"),
        booking_date=booking,
        value_date=_date(entry, "ValDt", where) or booking,
        kind=_kind(entry, details, direction),
        fee=_fee(entry, details, where),
        description=_description(entry, details),
        transactions=tuple(
            _transaction(d, f"{where}/NtryDtls/TxDtls[{n}]") for n, d in enumerate(details, 1)
        ),
    )


def _transaction(details: Element, where: str) -> LineTransaction:
    reference = text(details, "Refs/EndToEndId")
    amount = details.find("Amt")
    if amount is None:
        amount = details.find("AmtDtls/TxAmt/Amt")
    return LineTransaction(
        end_to_end_id=None if reference == _NOT_PROVIDED else reference,
        amount=None if amount is None else _money(amount, f"{where}/Amt"),
        return_reason=text(details, "RtrInf/Rsn/Cd") or text(details, "RtrInf/Rsn/Prtry"),
    )


def _end_to_end_id(details: Sequence[Element]) -> str | None:
    found = next((text(d, "Refs/EndToEndId") for d in details if d.find("Refs") is not None), None)
    return None if found == _NOT_PROVIDED else found


def _kind(entry: Element, details: Sequence[Element], direction: LineDirection) -> LineKind:
    """From the entry's BkTxCd, or its first transaction's when the entry states none."""
    code = entry.find("BkTxCd")
    if code is None or not len(code):
        code = next((c for d in details if (c := d.find("BkTxCd")) is not None), None)
    returned = text(entry, "RvslInd") == "true" or any(
        d.find("RtrInf") is not None for d in details
    )
    return camt_kind(
        domain="" if code is None else text(code, "Domn/Cd") or "",
        family="" if code is None else text(code, "Domn/Fmly/Cd") or "",
        subfamily="" if code is None else text(code, "Domn/Fmly/SubFmlyCd") or "",
        proprietary="" if code is None else text(code, "Prtry/Cd") or "",
        returned=returned,
        direction=direction,
    )


def _fee(entry: Element, details: Sequence[Element], where: str) -> Money | None:
    charges = entry.findall("Chrgs") or [c for d in details for c in d.findall("Chrgs")]
    if not charges:
        return None
    amounts: list[Element] = []
    for element in charges:
        total = element.find("TtlChrgsAndTaxAmt")
        # From 001.04 the records are Chrgs/Rcrd; up to 001.03 each Chrgs is one record.
        records = element.findall("Rcrd/Amt") or element.findall("Amt")
        amounts += [total] if total is not None else records
    fees = [_money(amount, f"{where}/Chrgs") for amount in amounts]
    if not fees:
        return None
    fee = fees[0]
    for more in fees[1:]:
        try:
            fee += more
        except ValueError as err:
            raise InvalidRequestError(f"{where}/Chrgs", "states charges in two currencies") from err
    return fee


def _description(entry: Element, details: Sequence[Element]) -> str:
    added = text(entry, "AddtlNtryInf")
    reasons = [reason for d in details if (reason := text(d, "RtrInf/Rsn/Cd"))]
    if added is not None:
        return added
    if reasons:
        return "return reason " + ", ".join(reasons)
    return " ".join(words for d in details for words in _texts(d, "RmtInf/Ustrd"))


def _money(element: Element | None, field: str) -> Money:
    if element is None or not (element.text or "").strip():
        return missing(field)
    code = currency(element.get("Ccy", ""), field=f"{field}/@Ccy").code
    return statement_money((element.text or "").strip(), code, field=field)


def _date(parent: Element, tag: str, where: str) -> date | None:
    day, moment = text(parent, f"{tag}/Dt"), text(parent, f"{tag}/DtTm")
    try:
        if day is not None:
            return date.fromisoformat(day[:10])
        return None if moment is None else datetime.fromisoformat(moment).date()
    except ValueError as err:
        raise InvalidRequestError(f"{where}/{tag}", f"{day or moment!r} is no ISO date") from err


def text(parent: Element, path: str) -> str | None:
    """The text of the element at `path`, stripped; None when there is none."""
    found = parent.find(path)
    return ((found.text or "").strip() or None) if found is not None else None


def _texts(parent: Element, path: str) -> list[str]:
    return [(e.text or "").strip() for e in parent.findall(path) if (e.text or "").strip()]


def missing(field: str) -> NoReturn:
    """Refuse the file for lacking `field`."""
    raise InvalidRequestError(field, "is missing")
