"""camt.053 statements, camt.052 intraday reports and camt.054 notifications (ISO 20022, 001.02
onwards) into Statements: one for each `Stmt` (`Rpt`, `Ntfctn`) of the document, in order.

The file is untrusted: defusedxml refuses any DTD, so no entity and no external reference is
ever expanded. Only booked entries are lines; pending and information-only ones are not.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from sagas.foundations import InvalidRequestError, currency
from sagas.reconcile.formats._camt_balance import balance_currency, camt_balances
from sagas.reconcile.formats._camt_entry import entry_line, is_booked, missing, text
from sagas.reconcile.formats._limits import refuse_lines
from sagas.reconcile.formats._statement import Statement, StatementFormat, StatementLine

_NAMESPACE = re.compile(
    r"urn:iso:std:iso:20022:tech:xsd:camt\.(?P<message>05[234])\.001\.(?P<v>\d\d)"
)
_DOCUMENTS = {
    "BkToCstmrAcctRpt": (StatementFormat.CAMT052, "052", "Rpt"),
    "BkToCstmrStmt": (StatementFormat.CAMT053, "053", "Stmt"),
    "BkToCstmrDbtCdtNtfctn": (StatementFormat.CAMT054, "054", "Ntfctn"),
}


def read_camt(data: bytes, max_lines: int | None = None) -> tuple[Statement, ...]:
    """Every account statement (report, notification) of a camt document, in order, read as a
    stream: each entry is dropped once it is a line and each statement once it is read, so
    memory holds the lines, not the document's tree. More than `max_lines` booked entries in
    the file are refused as soon as the next one is read."""
    reading = _Reading(max_lines)
    try:
        for event, element in iterparse(io.BytesIO(data), events=("start", "end"), forbid_dtd=True):
            if event == "start":
                reading.started(element)
            else:
                reading.ended(element)
    except DefusedXmlException as err:
        problem = f"declares a DTD or entities, which no statement needs ({type(err).__name__})"
        raise InvalidRequestError("FILE", problem) from err
    except ParseError as err:
        raise InvalidRequestError("FILE", f"is not well-formed XML: {err}") from err
    return reading.finished()


class _Reading:
    """The state of one streamed camt document: where the parser is, the statements read and
    the lines of the one being read."""

    def __init__(self, max_lines: int | None) -> None:
        self.max_lines = max_lines
        self.depth = 0
        self.root: Element | None = None
        self.document: Element | None = None
        self.message = ""
        self.format = StatementFormat.CAMT053
        self.tag = ""
        self.report: Element | None = None
        self.where = ""
        """The report in messages: `Stmt` for the first, `Stmt[2]` for the second."""
        self.entries = 0
        self.lines: list[StatementLine] = []
        self.total = 0
        self.statements: list[Statement] = []

    def started(self, element: Element) -> None:
        if self.depth == 0:
            self.root, self.message = element, _message(element.tag)
        element.tag = element.tag.rpartition("}")[2]
        if self.depth == 1:
            self._document(element)
        elif self.depth == 2 and element.tag == self.tag:
            self.report, self.entries, self.lines = element, 0, []
            number = len(self.statements) + 1
            self.where = self.tag if number == 1 else f"{self.tag}[{number}]"
        self.depth += 1

    def ended(self, element: Element) -> None:
        self.depth -= 1
        report = self.report
        if report is None:
            return
        if self.depth == 2 and element is report:
            self.statements.append(self._statement(report))
            if self.document is not None:
                self.document.remove(report)
            self.report = None
            return
        if self.depth != 3 or element.tag != "Ntry" or element not in report:
            return
        self.entries += 1
        if is_booked(element):
            self.lines.append(entry_line(element, f"{self.where}/Ntry[{self.entries}]"))
            self.total += 1
            if self.max_lines is not None:
                refuse_lines(self.total, self.max_lines)
        report.remove(element)

    def _document(self, element: Element) -> None:
        known = _DOCUMENTS.get(element.tag)
        root = self.root
        if root is None or root.tag != "Document" or known is None or known[1] != self.message:
            raise InvalidRequestError("FILE", "is camt XML, but no statement or notification")
        self.document = element
        self.format, _, self.tag = known

    def _statement(self, report: Element) -> Statement:
        assert self.root is not None
        where = self.where
        statement_id = text(report, "Id") or missing(f"{where}/Id")
        start, end = _period(self.root, report, where)
        code = _currency(report, where, self.lines)
        opening, closing = camt_balances(report, where, code)
        return Statement(
            format=self.format,
            statement_id=statement_id,
            account=_account(report, where),
            currency=code,
            period_start=start,
            period_end=end,
            lines=tuple(self.lines),
            copy_indicator=text(report, "CpyDplctInd"),
            opening=opening,
            closing=closing,
        )

    def finished(self) -> tuple[Statement, ...]:
        if self.root is None or not self.tag:
            raise InvalidRequestError("FILE", "is camt XML, but no statement or notification")
        if not self.statements:
            raise InvalidRequestError("FILE", f"holds no {self.tag} element: no statement")
        return tuple(self.statements)


def _message(tag: str) -> str:
    """The message (052, 053 or 054) the root element's namespace names; refused if none."""
    namespace = tag[1:].partition("}")[0] if tag.startswith("{") else ""
    match = _NAMESPACE.fullmatch(namespace)
    if match is None or int(match["v"]) < 2:
        problem = f"is XML in namespace {namespace!r}, not camt.052, 053 or 054 001.02 onwards"
        raise InvalidRequestError("FILE", problem)
    return match["message"]


def _account(report: Element, tag: str) -> str:
    account = text(report, "Acct/Id/IBAN") or text(report, "Acct/Id/Othr/Id")
    return account or missing(f"{tag}/Acct/Id")


def _currency(report: Element, tag: str, lines: Sequence[StatementLine]) -> str:
    code = text(report, "Acct/Ccy")
    if code is not None:
        return currency(code, field=f"{tag}/Acct/Ccy").code
    if lines:
        return lines[0].amount.currency.code
    # A statement with no movements still states its balances, and their currency.
    return balance_currency(report, tag) or missing(f"{tag}/Acct/Ccy")


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
