"""camt.053 statements and camt.054 notifications (ISO 20022, 001.02 onwards) into a Statement.

The file is untrusted: defusedxml refuses any DTD, so no entity and no external reference is
ever expanded. Only booked entries are lines; pending and information-only ones are not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from sagas.foundations import InvalidRequestError, currency
from sagas.reconcile._camt_entry import entry_line, is_booked, missing, text
from sagas.reconcile._statement import Statement, StatementFormat, StatementLine

_NAMESPACE = re.compile(
    r"urn:iso:std:iso:20022:tech:xsd:camt\.(?P<message>05[34])\.001\.(?P<v>\d\d)"
)
_DOCUMENTS = {
    "BkToCstmrStmt": (StatementFormat.CAMT053, "053", "Stmt"),
    "BkToCstmrDbtCdtNtfctn": (StatementFormat.CAMT054, "054", "Ntfctn"),
}


def read_camt(data: bytes) -> Statement:
    """The one account statement (or notification) of a camt document."""
    root, message = _parse(data)
    statement_format, tag, report = _report(root, message)
    statement_id = text(report, "Id") or missing(f"{tag}/Id")
    lines = tuple(
        entry_line(entry, f"{tag}/Ntry[{n}]", f"{statement_id}:{n}")
        for n, entry in enumerate(report.findall("Ntry"), 1)
        if is_booked(entry)
    )
    start, end = _period(root, report, tag)
    return Statement(
        format=statement_format,
        statement_id=statement_id,
        account=_account(report, tag),
        currency=_currency(report, tag, lines),
        period_start=start,
        period_end=end,
        lines=lines,
    )


def _parse(data: bytes) -> tuple[Element, str]:
    """The document, its tags without the namespace, and its message (053 or 054)."""
    try:
        root = fromstring(data, forbid_dtd=True)
    except DefusedXmlException as err:
        problem = f"declares a DTD or entities, which no statement needs ({type(err).__name__})"
        raise InvalidRequestError("FILE", problem) from err
    except ParseError as err:
        raise InvalidRequestError("FILE", f"is not well-formed XML: {err}") from err
    namespace = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    match = _NAMESPACE.fullmatch(namespace)
    if match is None or int(match["v"]) < 2:
        problem = f"is XML in namespace {namespace!r}, not camt.053 or camt.054 001.02 onwards"
        raise InvalidRequestError("FILE", problem)
    for element in root.iter():
        element.tag = element.tag.rpartition("}")[2]
    return root, match["message"]


def _report(root: Element, message: str) -> tuple[StatementFormat, str, Element]:
    known = _DOCUMENTS.get(root[0].tag) if root.tag == "Document" and len(root) else None
    if known is None or known[1] != message:
        raise InvalidRequestError("FILE", "is camt XML, but no statement or notification")
    statement_format, _, tag = known
    reports = root[0].findall(tag)
    if len(reports) != 1:
        problem = f"holds {len(reports)} {tag} elements: one account's statement a file"
        raise InvalidRequestError("FILE", problem)
    return statement_format, tag, reports[0]


def _account(report: Element, tag: str) -> str:
    account = text(report, "Acct/Id/IBAN") or text(report, "Acct/Id/Othr/Id")
    return account or missing(f"{tag}/Acct/Id")


def _currency(report: Element, tag: str, lines: Sequence[StatementLine]) -> str:
    code = text(report, "Acct/Ccy")
    if code is not None:
        return currency(code, field=f"{tag}/Acct/Ccy").code
    if lines:
        return lines[0].amount.currency.code
    return missing(f"{tag}/Acct/Ccy")


def _period(root: Element, report: Element, tag: str) -> tuple[datetime | None, datetime | None]:
    """FrToDt; without it, the statement is complete when it was created."""
    start, end = text(report, "FrToDt/FrDtTm"), text(report, "FrToDt/ToDtTm")
    end_at: datetime | None
    if end is not None:
        end_at = _instant(end, f"{tag}/FrToDt/ToDtTm")
    else:
        created = text(report, "CreDtTm") or text(root, "*/GrpHdr/CreDtTm")
        end_at = None if created is None else _instant(created, f"{tag}/CreDtTm")
    return None if start is None else _instant(start, f"{tag}/FrToDt/FrDtTm"), end_at


def _instant(text: str, field: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as err:
        raise InvalidRequestError(field, f"{text!r} is no ISO date and time") from err
    # ISO 20022 allows a time without offset; the engine keeps every instant in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
