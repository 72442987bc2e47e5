"""A CSV statement read by a column mapping declared in a file; a bad file names the column
and the row (the header is row 1, as a spreadsheet shows it)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import CsvMapping, LineDirection, LineKind, StatementFormat, read_statement

BANK_EXPORT = """\
Buchungstag;Valuta;Transaktion;Referenz;Betrag;Gebühr;Text
03.11.2026;04.11.2026;TX-1;PAYOUT-0001;-250,00;0,35;Payout to supplier
03.11.2026;03.11.2026;TX-2;;1200,00;;Top-up
""".encode()

MAPPING = {
    "booking_date_column": "Buchungstag",
    "value_date_column": "Valuta",
    "bank_reference_column": "Transaktion",
    "end_to_end_id_column": "Referenz",
    "amount_column": "Betrag",
    "fee_column": "Gebühr",
    "description_column": "Text",
    "account": "DE89370400440532013000",
    "currency": "EUR",
    "statement_id": "export-2026-11-03",
    "delimiter": ";",
    "decimal_separator": ",",
    "date_format": "%d.%m.%Y",
}


def _toml(mapping: dict[str, str]) -> str:
    return "".join(f"{name} = {json.dumps(value)}\n" for name, value in mapping.items())


@pytest.fixture(params=["toml", "json"])
def mapping_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / f"bank.{request.param}"
    text = _toml(MAPPING) if request.param == "toml" else json.dumps(MAPPING)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(data: bytes, mapping: CsvMapping) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data, csv_mapping=mapping)
    return raised.value


def test_a_mapping_from_a_file_reads_a_bank_s_export(mapping_file: Path) -> None:
    read = read_statement(BANK_EXPORT, csv_mapping=CsvMapping.from_file(mapping_file))

    assert (read.format, read.statement_id) == (StatementFormat.CSV, "export-2026-11-03")
    assert (read.account, read.currency) == ("DE89370400440532013000", "EUR")
    assert [
        (x.bank_reference, x.end_to_end_id, x.direction, x.amount, x.fee, x.kind)
        for x in read.lines
    ] == [
        ("TX-1", "PAYOUT-0001", "debit", Money.of(25000, "EUR"), Money.of(35, "EUR"), "other"),
        ("TX-2", None, "credit", Money.of(120000, "EUR"), None, "other"),
    ]
    assert (read.lines[0].booking_date, read.lines[0].value_date) == (
        date(2026, 11, 3),
        date(2026, 11, 4),
    )


def test_without_a_statement_id_the_same_file_always_has_the_same_one() -> None:
    unnamed = CsvMapping.from_dict({k: v for k, v in MAPPING.items() if k != "statement_id"})

    first, again = (read_statement(BANK_EXPORT, csv_mapping=unnamed) for _ in range(2))

    assert first.statement_id == again.statement_id
    assert first.statement_id.startswith("csv-")


def test_a_direction_column_and_a_kind_column() -> None:
    data = (
        b"ref,dir,amount,ccy,day,kind\n"
        b"R1,DBIT,10.00,EUR,2026-11-03,Payout\n"
        b"R2,CRDT,10,EUR,2026-11-03,\n"
    )
    mapping = CsvMapping(
        bank_reference_column="ref",
        direction_column="dir",
        amount_column="amount",
        currency_column="ccy",
        booking_date_column="day",
        kind_column="kind",
        account="ACC-1",
    )

    lines = read_statement(data, csv_mapping=mapping).lines

    assert [(x.direction, x.kind) for x in lines] == [
        (LineDirection.DEBIT, LineKind.PAYOUT),
        (LineDirection.CREDIT, LineKind.OTHER),
    ]


@pytest.mark.parametrize(
    ("cell", "broken", "field"),
    [
        ("-250,00", "-250,005", 'row 2, column "Betrag"'),
        ("1200,00", "12 00,00", 'row 3, column "Betrag"'),
        ("0,35", "0,3x5", 'row 2, column "Gebühr"'),
        ("1200,00;", ";", 'row 3, column "Betrag"'),
        ("03.11.2026;03.11.2026", "03.11.2026;2026-11-03", 'row 3, column "Valuta"'),
    ],
)
def test_a_bad_cell_names_its_column_and_row(cell: str, broken: str, field: str) -> None:
    data = BANK_EXPORT.replace(cell.encode(), broken.encode())

    refused = _refused(data, CsvMapping.from_dict(MAPPING))

    assert refused.field == field


def test_a_missing_column_is_named() -> None:
    data = BANK_EXPORT.replace(b"Transaktion", b"Transaction")

    refused = _refused(data, CsvMapping.from_dict(MAPPING))

    assert refused.field == "Transaktion"
    assert "Transaction" in refused.problem


def test_a_row_with_another_number_of_cells_is_refused() -> None:
    refused = _refused(BANK_EXPORT + b"03.11.2026;04.11.2026\n", CsvMapping.from_dict(MAPPING))

    assert refused.field == "FILE"
    assert "row 4" in refused.problem


@pytest.mark.parametrize(
    ("mapping", "field"),
    [
        ({**MAPPING, "amount_colum": "Betrag"}, "amount_colum"),
        ({k: v for k, v in MAPPING.items() if k != "amount_column"}, "amount_column"),
        ({k: v for k, v in MAPPING.items() if k != "account"}, "account"),
        ({**MAPPING, "currency": "EURO"}, "currency"),
        ({**MAPPING, "delimiter": ";;"}, "delimiter"),
        ({**MAPPING, "debit_values": "D"}, "debit_values"),
    ],
)
def test_a_bad_mapping_names_its_field(mapping: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        CsvMapping.from_dict(mapping)

    assert raised.value.field == field


def test_a_mapping_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text("amount_column: Betrag\n")

    with pytest.raises(InvalidRequestError) as raised:
        CsvMapping.from_file(path)

    assert raised.value.field == "mapping"
