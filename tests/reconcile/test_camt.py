"""camt.053 and camt.054 files as banks send them, read into statement lines; untrusted XML
refused before anything in it is expanded."""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import partial

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import LineDirection, LineKind, StatementFormat, read_statement
from tests.reconcile.camt_documents import entry, statement
from tests.reconcile.schemas import schema_errors


def _valid(data: bytes, version: int = 8, message: str = "camt.053") -> bytes:
    assert schema_errors(data, f"{message}.001.{version:02d}") == []
    return data


def _refused(data: bytes) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data)
    return raised.value


@pytest.mark.parametrize("version", range(2, 9))
def test_every_version_from_001_02_reads_the_same_line(version: int) -> None:
    data = _valid(statement(entry(version=version), version=version), version)

    read = read_statement(data)

    assert (read.format, read.statement_id, read.currency) == (
        StatementFormat.CAMT053,
        "STMT-2026-11-03",
        "EUR",
    )
    assert read.account == "DE89370400440532013000"
    assert read.period_start == datetime(2026, 11, 2, 23, 0, tzinfo=UTC)
    [line] = read.lines
    assert (line.bank_reference, line.end_to_end_id) == ("BNK-1", "PAY-1")
    assert (line.direction, line.kind) == (LineDirection.DEBIT, LineKind.PAYOUT)
    assert line.amount == Money.of(25000, "EUR")
    assert (line.booking_date, line.value_date) == (date(2026, 11, 3), date(2026, 11, 4))
    assert line.fee is None


def test_a_001_02_statement_with_charges_returns_fees_and_pending_entries() -> None:
    v2 = partial(entry, version=2)
    fee_code = "<Domn><Cd>ACMT</Cd><Fmly><Cd>MDOP</Cd><SubFmlyCd>CHRG</SubFmlyCd></Fmly></Domn>"
    return_code = "<Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn>"
    incoming = "<Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn>"
    entries = [
        v2(
            entry_reference="<NtryRef>N-1</NtryRef>",
            references="",
            booked="<DtTm>2026-11-03T10:15:00+01:00</DtTm>",
            charges=(
                '<Chrgs><Amt Ccy="EUR">0.20</Amt></Chrgs><Chrgs><Amt Ccy="EUR">0.05</Amt></Chrgs>'
            ),
        ),
        v2(status="PDNG", references="<AcctSvcrRef>BNK-PENDING</AcctSvcrRef>"),
        v2(amount="1.50", references="", code=fee_code, end_to_end_id="NOTPROVIDED"),
        v2(
            direction="CRDT",
            references="<AcctSvcrRef>BNK-4</AcctSvcrRef>",
            code=return_code,
            details="<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>",
        ),
        v2(
            amount="80",
            direction="CRDT",
            references="<AcctSvcrRef>BNK-5</AcctSvcrRef>",
            code=incoming,
            end_to_end_id="",
            details="<RmtInf><Ustrd>Invoice 42</Ustrd></RmtInf>",
        ),
    ]
    account = "<Id><Othr><Id>PROVIDER-7</Id></Othr></Id>"
    data = _valid(statement("".join(entries), version=2, account=account, period=""), 2)

    read = read_statement(data)

    assert (read.account, read.currency, read.period_start) == ("PROVIDER-7", "EUR", None)
    assert read.period_end == datetime(2026, 11, 3, 23, 59, 59, tzinfo=UTC)
    assert [
        (x.bank_reference, x.end_to_end_id, x.direction, x.kind, x.amount, x.fee, x.description)
        for x in read.lines
    ] == [
        ("N-1", "PAY-1", "debit", "payout", Money.of(25000, "EUR"), Money.of(25, "EUR"), ""),
        (None, None, "debit", "fee", Money.of(150, "EUR"), None, ""),
        ("BNK-4", "PAY-1", "credit", "return", Money.of(25000, "EUR"), None, "return reason AC04"),
        ("BNK-5", None, "credit", "other", Money.of(8000, "EUR"), None, "Invoice 42"),
    ]
    assert read.lines[0].booking_date == date(2026, 11, 3)


def test_charges_are_their_total_or_the_sum_of_their_records() -> None:
    total = '<Chrgs><TtlChrgsAndTaxAmt Ccy="EUR">0.40</TtlChrgsAndTaxAmt></Chrgs>'
    records = (
        '<Chrgs><Rcrd><Amt Ccy="EUR">0.10</Amt></Rcrd>'
        '<Rcrd><Amt Ccy="EUR">0.15</Amt></Rcrd></Chrgs>'
    )
    data = _valid(statement(entry(charges=total) + entry(charges=records)))

    assert [line.fee for line in read_statement(data).lines] == [
        Money.of(40, "EUR"),
        Money.of(25, "EUR"),
    ]


def test_a_camt_054_notification_reads_as_one() -> None:
    document = statement(entry()).replace(b"camt.053", b"camt.054")
    document = document.replace(b"BkToCstmrStmt>", b"BkToCstmrDbtCdtNtfctn>")
    document = document.replace(b"Stmt>", b"Ntfctn>")
    # A notification has no balances.
    start = document.index(b"<Bal>")
    document = document[:start] + document[document.index(b"</Bal>") + 6 :]
    read = read_statement(_valid(document, message="camt.054"))

    assert read.format is StatementFormat.CAMT054
    assert [line.end_to_end_id for line in read.lines] == ["PAY-1"]


@pytest.mark.parametrize(
    ("amount", "currency", "field"),
    [("12.505", "EUR", "Stmt/Ntry[1]/Amt"), ("100.5", "JPY", "Stmt/Ntry[1]/Amt")],
)
def test_an_amount_with_more_decimals_than_its_currency_is_refused(
    amount: str, currency: str, field: str
) -> None:
    refused = _refused(statement(entry(amount=amount, currency=currency)))

    assert refused.field == field
    assert "decimals" in refused.problem


def test_a_bad_field_is_named_by_its_path() -> None:
    assert _refused(statement(entry(direction="DEBIT"))).field == "Stmt/Ntry[1]/CdtDbtInd"
    assert _refused(statement(entry(currency="XXY"))).field == "Stmt/Ntry[1]/Amt/@Ccy"
    assert _refused(statement(entry(), account="<Ccy>EUR</Ccy>")).field == "Stmt/Acct/Id"


def test_read_statement_refuses_a_file_of_two_statements_naming_read_statements() -> None:
    refused = _refused(statement(entry(), statements=2))

    assert refused.field == "FILE"
    assert "holds 2 statements" in refused.problem
    assert "read_statements" in refused.problem


_BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE Document [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
  <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>&d;</MsgId></GrpHdr></BkToCstmrStmt></Document>"""

_EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<Stmt><Id>&secret;</Id></Stmt></BkToCstmrStmt></Document>"""

_EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE Document SYSTEM "http://127.0.0.1:9/camt.dtd">
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"/>"""


@pytest.mark.parametrize(
    "data",
    [_BOMB, _EXTERNAL_ENTITY, _EXTERNAL_DTD],
    ids=["bomb", "external-entity", "external-dtd"],
)
def test_entities_and_external_references_are_refused_before_expansion(data: bytes) -> None:
    refused = _refused(data)

    assert refused.field == "FILE"
    assert "DTD" in refused.problem
    assert "root:" not in str(refused)


@pytest.mark.parametrize(
    "data",
    [
        b"<Document><BkToCstmrStmt/></Document>",
        statement(entry()).replace(b"camt.053.001.08", b"camt.053.001.01"),
        statement(entry()).replace(b"camt.053.001.08", b"pain.001.001.09"),
        statement(entry()).replace(b"camt.053.001.08", b"camt.054.001.08"),
        b"<Document",
    ],
    ids=["no-namespace", "version-01", "pain", "054-namespace-053-body", "broken"],
)
def test_xml_that_is_no_camt_statement_is_refused_naming_the_file(data: bytes) -> None:
    assert _refused(data).field == "FILE"
