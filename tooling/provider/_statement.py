"""The provider's statement of a day, as a bank would publish it: camt.053 (001.08), camt.054
(001.08, the same entries as a notification) or CSV (the columns of `CsvMapping.simulator()`).

Each payout stated is a DBIT entry: AcctSvcrRef the provider's id (PRV-<run>-<n>), EndToEndId the
payout key as sent, PMNT/ICDT/ESCT, Chrgs with its fee. A fee is charged on top of the amount,
so the closing balance is the opening one less every amount and fee, plus every credit. A key
over 35 characters is stated as sent and fails the schema's Max35Text, as a real rail refuses it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from xml.etree.ElementTree import Element, SubElement, tostring

from sagas.foundations import Money
from tooling.provider._journal import BookedLine, Direction, LineKind

NAMESPACES = {
    "camt053": "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08",
    "camt054": "urn:iso:std:iso:20022:tech:xsd:camt.054.001.08",
}
CSV_COLUMNS = (
    "account",
    "booking_date",
    "value_date",
    "bank_reference",
    "end_to_end_id",
    "direction",
    "amount",
    "currency",
    "fee",
    "kind",
    "description",
)


class StatementFormat(StrEnum):
    CAMT053 = "camt053"  # end-of-day statement with balances
    CAMT054 = "camt054"  # debit/credit notification: the same entries, no balances
    CSV = "csv"  # one line a row

    @property
    def content_type(self) -> str:
        return "text/csv; charset=utf-8" if self is StatementFormat.CSV else "application/xml"


def provider_account(currency: str) -> str:
    """The provider's own account in `currency`: IBAN-shaped, fixed."""
    return f"ZZ00SIMU{currency}0000000001"


@dataclass(frozen=True, kw_only=True)
class DayStatement:
    day: date
    currency: str
    opening: Money
    lines: tuple[BookedLine, ...]
    created_at: datetime

    @property
    def closing(self) -> Money:
        closing = self.opening
        for line in self.lines:
            closing += line.movement()
        return closing

    @property
    def statement_id(self) -> str:
        return f"PRV-{self.currency}-{self.day:%Y%m%d}"

    @property
    def complete_until(self) -> datetime:
        """The end of the day, or now while the day is still going."""
        return min(self.created_at, datetime.combine(self.day + timedelta(days=1), time(), UTC))


def render(statement: DayStatement, fmt: StatementFormat) -> bytes:
    if fmt is StatementFormat.CSV:
        return _csv(statement)
    document = Element("Document", xmlns=NAMESPACES[fmt.value])
    if fmt is StatementFormat.CAMT053:
        report = _report(SubElement(document, "BkToCstmrStmt"), "Stmt", statement)
        _balance(report, "OPBD", statement.opening, statement.day)
        _balance(report, "CLBD", statement.closing, statement.day)
    else:
        report = _report(SubElement(document, "BkToCstmrDbtCdtNtfctn"), "Ntfctn", statement)
    for line in statement.lines:
        _entry(report, line)
    data: bytes = tostring(document, encoding="utf-8", xml_declaration=True)
    return data


def _report(message: Element, tag: str, statement: DayStatement) -> Element:
    created = statement.created_at.isoformat(timespec="seconds")
    header = SubElement(message, "GrpHdr")
    _text(header, "MsgId", f"{statement.statement_id}-{tag}")
    _text(header, "CreDtTm", created)
    report = SubElement(message, tag)
    _text(report, "Id", statement.statement_id)
    _text(report, "CreDtTm", created)
    period = SubElement(report, "FrToDt")
    start = datetime.combine(statement.day, time(), UTC)
    _text(period, "FrDtTm", start.isoformat())
    _text(period, "ToDtTm", statement.complete_until.isoformat(timespec="seconds"))
    account = SubElement(report, "Acct")
    _text(SubElement(account, "Id"), "IBAN", provider_account(statement.currency))
    _text(account, "Ccy", statement.currency)
    return report


def _balance(report: Element, code: str, balance: Money, day: date) -> None:
    element = SubElement(report, "Bal")
    _text(SubElement(SubElement(element, "Tp"), "CdOrPrtry"), "Cd", code)
    _amount(element, "Amt", balance if balance.minor >= 0 else -balance)
    _text(element, "CdtDbtInd", "CRDT" if balance.minor >= 0 else "DBIT")
    _text(SubElement(element, "Dt"), "Dt", day.isoformat())


def _entry(report: Element, line: BookedLine) -> None:
    entry = SubElement(report, "Ntry")
    _amount(entry, "Amt", line.amount)
    _text(entry, "CdtDbtInd", line.direction.value)
    _text(SubElement(entry, "Sts"), "Cd", "BOOK")
    _text(SubElement(entry, "BookgDt"), "Dt", line.day.isoformat())
    _text(SubElement(entry, "ValDt"), "Dt", line.day.isoformat())
    _text(entry, "AcctSvcrRef", line.reference)
    domain = SubElement(SubElement(entry, "BkTxCd"), "Domn")
    _text(domain, "Cd", "PMNT")
    family = SubElement(domain, "Fmly")
    # A return comes back under the payout's family (ICDT, sub-family RRTN).
    _text(family, "Cd", "RCDT" if line.kind is LineKind.OTHER else "ICDT")
    _text(family, "SubFmlyCd", "RRTN" if line.return_reason else "ESCT")
    if line.fee is not None:
        charges = SubElement(entry, "Chrgs")
        _amount(charges, "TtlChrgsAndTaxAmt", line.fee)
        record = SubElement(charges, "Rcrd")
        _amount(record, "Amt", line.fee)
        _text(record, "CdtDbtInd", "DBIT")
        _text(record, "ChrgInclInd", "false")
    details = SubElement(SubElement(entry, "NtryDtls"), "TxDtls")
    references = SubElement(details, "Refs")
    _text(references, "AcctSvcrRef", line.reference)
    _text(references, "EndToEndId", line.key)
    _amount(details, "Amt", line.amount)
    _text(details, "CdtDbtInd", line.direction.value)
    if line.return_reason:
        _text(SubElement(SubElement(details, "RtrInf"), "Rsn"), "Cd", line.return_reason)


def _csv(statement: DayStatement) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for line in statement.lines:
        day = line.day.isoformat()
        writer.writerow(
            [
                provider_account(statement.currency),
                day,
                day,
                line.reference,
                line.key,
                "debit" if line.direction is Direction.DEBIT else "credit",
                line.amount.amount_text(),
                statement.currency,
                "" if line.fee is None else line.fee.amount_text(),
                line.kind.value,
                f"return reason {line.return_reason}" if line.return_reason else "",
            ]
        )
    return out.getvalue().encode()


def _amount(parent: Element, tag: str, money: Money) -> None:
    _text(parent, tag, money.amount_text()).set("Ccy", money.currency.code)


def _text(parent: Element, tag: str, text: str) -> Element:
    element = SubElement(parent, tag)
    element.text = text
    return element
