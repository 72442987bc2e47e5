"""CSV exports as banks write them (tests/reconcile/fixtures/csv_*, written for these tests on
the model of Dutch, German, British and American exports): a preamble before the header,
thousands separators, debit and credit columns, signs before or after the digits or
parentheses, quoted amounts, and rows of several accounts and currencies. Every refusal names
the row as the file numbers it (its first line is row 1) and the column."""

from __future__ import annotations

import csv
import io
import re
import tomllib
from dataclasses import fields
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import CsvMapping, LineDirection, StatementFormat, read_statement
from sagas.reconcile.formats import read_csv, read_csv_statements
from tests.reconcile.fixture_files import FIXTURES

DEBIT, CREDIT = LineDirection.DEBIT, LineDirection.CREDIT

DUTCH_AF_BIJ: dict[str, Any] = {
    "booking_date_column": "Datum",
    "date_format": "%Y%m%d",
    "account_column": "Rekening",
    "currency": "EUR",
    "direction_column": "Af Bij",
    "debit_values": ["Af"],
    "credit_values": ["Bij"],
    "amount_column": "Bedrag (EUR)",
    "description_column": "Mededelingen",
    "delimiter": ";",
    "decimal_separator": ",",
}
DUTCH_ACCOUNTS: dict[str, Any] = {
    "booking_date_column": "Datum",
    "value_date_column": "Rentedatum",
    "account_column": "IBAN/BBAN",
    "currency_column": "Munt",
    "amount_column": "Bedrag",
    "bank_reference_column": "Volgnr",
    "end_to_end_id_column": "Transactiereferentie",
    "description_column": "Omschrijving-1",
    "decimal_separator": ",",
}
GERMAN_PREAMBLE: dict[str, Any] = {
    "preamble_lines": 6,
    "encoding": "iso-8859-1",
    "booking_date_column": "Buchungstag",
    "value_date_column": "Wertstellung",
    "date_format": "%d.%m.%Y",
    "amount_column": "Betrag (EUR)",
    "end_to_end_id_column": "Kundenreferenz",
    "description_column": "Verwendungszweck",
    "account": "DE89370400440532013000",
    "currency": "EUR",
    "delimiter": ";",
    "decimal_separator": ",",
    "thousands_separator": ".",
}
UK_PAID_OUT_IN: dict[str, Any] = {
    "booking_date_column": "Date",
    "date_format": "%d %b %Y",
    "debit_amount_column": "Paid out",
    "credit_amount_column": "Paid in",
    "description_column": "Description",
    "account": "GB33BUKB20201555555555",
    "currency": "GBP",
    "thousands_separator": ",",
}
US_SIGNED: dict[str, Any] = {
    "booking_date_column": "Posting Date",
    "date_format": "%m/%d/%Y",
    "amount_column": "Amount",
    "end_to_end_id_column": "Reference",
    "description_column": "Description",
    "account": "021000021-000123456789",
    "currency": "USD",
    "thousands_separator": ",",
}
DIALECTS: dict[str, dict[str, Any]] = {
    "csv_nl_af_bij.csv": DUTCH_AF_BIJ,
    "csv_nl_accounts_currencies.csv": DUTCH_ACCOUNTS,
    "csv_de_preamble_latin1.csv": GERMAN_PREAMBLE,
    "csv_uk_paid_out_in.csv": UK_PAID_OUT_IN,
    "csv_us_parentheses.csv": US_SIGNED,
}


def _file(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _mapping(values: dict[str, Any], **changed: Any) -> CsvMapping:
    return CsvMapping.from_dict({**values, **changed})


def _lines(name: str) -> list[tuple[LineDirection, Money, date]]:
    read = read_statement(_file(name), csv_mapping=_mapping(DIALECTS[name]))
    return [(x.direction, x.amount, x.booking_date) for x in read.lines]


def _refused(data: bytes, mapping: CsvMapping) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as raised:
        read_csv_statements(data, mapping)
    return raised.value


def _eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


def _rows_counted_apart(name: str) -> int:
    """The rows of money a person counts in the file: every non-blank row after the header."""
    mapping = DIALECTS[name]
    text = _file(name).decode(str(mapping.get("encoding", "utf-8")))
    rows = list(csv.reader(io.StringIO(text), delimiter=str(mapping.get("delimiter", ","))))
    body = rows[int(mapping.get("preamble_lines", 0)) + 1 :]
    return sum(1 for row in body if any(cell.strip() for cell in row))


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_every_row_of_each_export_is_a_line(name: str) -> None:
    statements = read_csv_statements(_file(name), _mapping(DIALECTS[name]))

    assert sum(len(s.lines) for s in statements) == _rows_counted_apart(name)


def test_a_dutch_export_with_an_af_bij_column() -> None:
    read = read_statement(_file("csv_nl_af_bij.csv"), csv_mapping=_mapping(DUTCH_AF_BIJ))

    assert (read.format, read.account, read.currency) == (
        StatementFormat.CSV,
        "NL91ABNA0417164300",
        "EUR",
    )
    assert _lines("csv_nl_af_bij.csv") == [
        (DEBIT, _eur(25000), date(2026, 11, 3)),
        (DEBIT, _eur(175), date(2026, 11, 3)),
        (CREDIT, _eur(120000), date(2026, 11, 3)),
        (CREDIT, _eur(25000), date(2026, 11, 4)),
    ]
    assert read.lines[0].description.endswith("Kenmerk: PAYOUT-0001")


def test_a_german_export_with_a_preamble_thousands_dots_and_latin_1() -> None:
    read = read_statement(
        _file("csv_de_preamble_latin1.csv"), csv_mapping=_mapping(GERMAN_PREAMBLE)
    )

    assert _lines("csv_de_preamble_latin1.csv") == [
        (DEBIT, _eur(125000), date(2026, 11, 3)),
        (CREDIT, _eur(1200000), date(2026, 11, 3)),
        (DEBIT, _eur(175), date(2026, 11, 3)),
    ]
    assert [x.end_to_end_id for x in read.lines] == ["PAYOUT-0004", None, None]
    assert read.lines[2].description == "Kontoführung Oktober"


def test_a_uk_export_with_paid_out_and_paid_in_columns() -> None:
    assert _lines("csv_uk_paid_out_in.csv") == [
        (DEBIT, Money.of(125000, "GBP"), date(2026, 11, 3)),
        (CREDIT, Money.of(1200000, "GBP"), date(2026, 11, 3)),
        (DEBIT, Money.of(250, "GBP"), date(2026, 11, 3)),
        (CREDIT, Money.of(125000, "GBP"), date(2026, 11, 4)),
    ]


def test_a_us_export_with_parentheses_minus_and_thousands_commas() -> None:
    read = read_statement(_file("csv_us_parentheses.csv"), csv_mapping=_mapping(US_SIGNED))

    assert _lines("csv_us_parentheses.csv") == [
        (DEBIT, Money.of(125000, "USD"), date(2026, 11, 3)),
        (CREDIT, Money.of(2000000, "USD"), date(2026, 11, 3)),
        (DEBIT, Money.of(1500, "USD"), date(2026, 11, 3)),
        (DEBIT, Money.of(250050, "USD"), date(2026, 11, 4)),
    ]
    assert [x.end_to_end_id for x in read.lines] == ["PAYOUT-0006", None, None, "PAYOUT-0007"]


def test_rows_of_several_accounts_and_currencies_are_one_statement_each() -> None:
    statements = read_csv_statements(
        _file("csv_nl_accounts_currencies.csv"), _mapping(DUTCH_ACCOUNTS)
    )

    assert [
        (s.account, s.currency, [(x.bank_reference, x.direction, x.amount) for x in s.lines])
        for s in statements
    ] == [
        (
            "NL44RABO0123456789",
            "EUR",
            [
                ("000000000000004711", DEBIT, _eur(125000)),
                ("000000000000004712", CREDIT, _eur(200000)),
            ],
        ),
        (
            "NL27RABO0987654321",
            "USD",
            [
                ("000000000000000301", DEBIT, Money.of(9999, "USD")),
                ("000000000000000302", CREDIT, Money.of(1000, "USD")),
            ],
        ),
        ("NL44RABO0123456789", "USD", [("000000000000000017", CREDIT, Money.of(50000, "USD"))]),
    ]
    ids = [s.statement_id for s in statements]
    assert len(set(ids)) == 3
    assert all(
        id_.endswith(f"/{s.account}/{s.currency}") for id_, s in zip(ids, statements, strict=True)
    )
    assert statements[1].lines[0].value_date == date(2026, 11, 4)


def test_the_statement_ids_of_a_file_are_the_same_on_every_read() -> None:
    data, mapping = _file("csv_nl_accounts_currencies.csv"), _mapping(DUTCH_ACCOUNTS)

    first, again = (read_csv_statements(data, mapping) for _ in range(2))

    assert [s.statement_id for s in first] == [s.statement_id for s in again]


def test_a_named_statement_id_is_the_base_of_each_statement_s() -> None:
    statements = read_csv_statements(
        _file("csv_nl_accounts_currencies.csv"),
        _mapping(DUTCH_ACCOUNTS, statement_id="rabo-2026-11-03"),
    )

    assert statements[0].statement_id == "rabo-2026-11-03/NL44RABO0123456789/EUR"


def test_a_file_of_one_account_and_currency_is_the_statement_read_csv_reads() -> None:
    data, mapping = _file("csv_nl_af_bij.csv"), _mapping(DUTCH_AF_BIJ)

    assert read_csv_statements(data, mapping) == (read_csv(data, mapping),)


def test_read_csv_refuses_a_file_of_several_currencies_naming_the_first_row_of_the_second() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_csv(_file("csv_nl_accounts_currencies.csv"), _mapping(DUTCH_ACCOUNTS))

    assert raised.value.field == 'row 3, column "Munt"'


def test_a_header_only_export_with_a_fixed_account_and_currency_is_a_day_without_movements() -> (
    None
):
    data = b"Date,Transaction type,Description,Paid out,Paid in,Balance\n"

    (statement,) = read_csv_statements(data, _mapping(UK_PAID_OUT_IN))

    assert (statement.account, statement.currency, statement.lines) == (
        "GB33BUKB20201555555555",
        "GBP",
        (),
    )


@pytest.mark.parametrize(
    ("cell", "direction", "minor"),
    [
        ("12,50-", DEBIT, 1250),
        ("-12,50", DEBIT, 1250),
        ("- 12,50", DEBIT, 1250),
        ("(1.012,50)", DEBIT, 101250),
        ("+1.012,50", CREDIT, 101250),
        ("1012,50", CREDIT, 101250),
        ('"1.012,50"', CREDIT, 101250),
        ("0,00", CREDIT, 0),
    ],
)
def test_a_signed_amount_before_or_after_its_digits(
    cell: str, direction: LineDirection, minor: int
) -> None:
    data = f"Datum;Betrag\n03.11.2026;{cell}\n".encode()
    mapping = CsvMapping(
        booking_date_column="Datum",
        date_format="%d.%m.%Y",
        amount_column="Betrag",
        account="DE89370400440532013000",
        currency="EUR",
        delimiter=";",
        decimal_separator=",",
        thousands_separator=".",
    )

    (line,) = read_csv(data, mapping).lines

    assert (line.direction, line.amount) == (direction, _eur(minor))


@pytest.mark.parametrize(
    ("name", "cell", "broken", "field"),
    [
        ("csv_de_preamble_latin1.csv", "-1,75", "-1.75", 'row 10, column "Betrag (EUR)"'),
        ("csv_de_preamble_latin1.csv", "12.000,00", "12.00,00", 'row 9, column "Betrag (EUR)"'),
        (
            "csv_de_preamble_latin1.csv",
            '03.11.2026";"Abschluss',
            '3 Nov";"Abschluss',
            ('row 10, column "Wertstellung"'),
        ),
        ("csv_us_parentheses.csv", "(1,250.00)", "(1,250.00", 'row 2, column "Amount"'),
        ("csv_us_parentheses.csv", "-15.00", "-15.005", 'row 4, column "Amount"'),
        ("csv_us_parentheses.csv", "-15.00", "--15.00", 'row 4, column "Amount"'),
        ("csv_us_parentheses.csv", '"-2,500.50"', '"-2,500.50-"', 'row 5, column "Amount"'),
        (
            "csv_uk_paid_out_in.csv",
            ',,"12,000.00"',
            ',"1.00","12,000.00"',
            ("row 3, columns 'Paid out' and 'Paid in'"),
        ),
        ("csv_uk_paid_out_in.csv", "2.50,,", ",,", "row 4, columns 'Paid out' and 'Paid in'"),
        ("csv_uk_paid_out_in.csv", ',,"12,000.00"', ',,"-12,000.00"', ('row 3, column "Paid in"')),
        ("csv_nl_af_bij.csv", '"Af";"1,75"', '"Af";"-1,75"', 'row 3, column "Bedrag (EUR)"'),
        ("csv_nl_af_bij.csv", '"Af";"1,75"', '"Of";"1,75"', 'row 3, column "Af Bij"'),
        (
            "csv_nl_accounts_currencies.csv",
            '"USD","RABONL2U","000000000000000017"',
            ('"usd","RABONL2U","000000000000000017"'),
            'row 5, column "Munt"',
        ),
        (
            "csv_nl_accounts_currencies.csv",
            '"NL27RABO0987654321","USD","RABONL2U","000000000000000302"',
            '"","USD","RABONL2U","000000000000000302"',
            'row 6, column "IBAN/BBAN"',
        ),
    ],
)
def test_a_bad_cell_is_refused_naming_the_file_s_row_and_its_column(
    name: str, cell: str, broken: str, field: str
) -> None:
    original = _file(name)
    encoding = str(DIALECTS[name].get("encoding", "utf-8"))
    data = original.decode(encoding).replace(cell, broken, 1).encode(encoding)
    assert data != original, "the fixture holds the cell the case breaks"

    assert _refused(data, _mapping(DIALECTS[name])).field == field


def test_a_sign_that_agrees_with_its_debit_or_credit_column_is_read() -> None:
    data = _file("csv_uk_paid_out_in.csv").replace(b"2.50,,", b"-2.50,,")
    data = data.replace(b',,"12,000.00"', b',,"+12,000.00"')

    lines = read_csv_statements(data, _mapping(UK_PAID_OUT_IN))[0].lines

    assert [(x.direction, x.amount.minor) for x in lines[1:3]] == [
        (CREDIT, 1200000),
        (DEBIT, 250),
    ]


def test_a_zero_beside_the_amount_in_the_other_column_is_no_second_amount() -> None:
    data = _file("csv_uk_paid_out_in.csv").replace(b"2.50,,", b"2.50,0.00,")

    lines = read_csv_statements(data, _mapping(UK_PAID_OUT_IN))[0].lines

    assert (lines[2].direction, lines[2].amount.minor) == (DEBIT, 250)


def test_every_field_of_a_mapping_is_in_the_docs_table() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "reconciliation.md").read_text(encoding="utf-8")
    section = docs.split("### CSV exports", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    keys = {key for row in rows for key in re.findall(r"`(\w+)`", row.split("|")[1])}

    assert keys == {field.name for field in fields(CsvMapping)}


@pytest.mark.parametrize("example", [GERMAN_PREAMBLE, UK_PAID_OUT_IN])
def test_the_docs_examples_are_the_mappings_these_tests_read(example: dict[str, Any]) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "reconciliation.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", docs.split("### CSV exports", 1)[1], re.S)

    assert example in [tomllib.loads(block) for block in blocks]


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        ({"decimal_separator": ".", "thousands_separator": "."}, "thousands_separator"),
        ({"thousands_separator": "_"}, "thousands_separator"),
        ({"preamble_lines": -1}, "preamble_lines"),
        ({"preamble_lines": "6"}, "preamble_lines"),
        ({"preamble_lines": True}, "preamble_lines"),
        ({"encoding": "klingon"}, "encoding"),
        ({"amount_column": None, "debit_amount_column": "Soll"}, "credit_amount_column"),
        ({"debit_amount_column": "Soll", "credit_amount_column": "Haben"}, "amount_column"),
        ({"amount_column": None}, "amount_column"),
        ({"account_column": "Konto"}, "account"),
        ({"currency_column": "Währung"}, "currency"),
    ],
)
def test_a_bad_mapping_is_refused_naming_its_field(changed: dict[str, Any], field: str) -> None:
    mapping = {**GERMAN_PREAMBLE, **changed}

    with pytest.raises(InvalidRequestError) as raised:
        CsvMapping.from_dict({k: v for k, v in mapping.items() if v is not None})

    assert raised.value.field == field


def test_a_column_twice_in_the_header_is_refused_naming_the_header_s_row() -> None:
    data = _file("csv_us_parentheses.csv").replace(b",Reference\n", b",Amount\n")
    mapping = _mapping(US_SIGNED, end_to_end_id_column=None)

    refused = _refused(data, mapping)

    assert refused.field == "Amount"
    assert "row 1" in refused.problem
