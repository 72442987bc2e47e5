"""read_statement tells the format by the file's content; anything it cannot tell is refused."""

from __future__ import annotations

import pytest

from sagas.foundations import InvalidRequestError
from sagas.reconcile import CsvMapping, StatementFormat, read_statement
from tests.reconcile.camt_documents import entry, statement
from tests.reconcile.test_mt940 import STATEMENT as MT940

CSV = b"bank_reference,amount,booking_date\nR1,-5.00,2026-11-03\n"
MAPPING = CsvMapping(
    bank_reference_column="bank_reference",
    amount_column="amount",
    booking_date_column="booking_date",
    account="ACC-1",
    currency="EUR",
)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (statement(entry()), StatementFormat.CAMT053),
        (b"\xef\xbb\xbf" + statement(entry()), StatementFormat.CAMT053),
        (MT940, StatementFormat.MT940),
        (MT940.replace(b"\n", b"\r\n"), StatementFormat.MT940),
    ],
    ids=["camt", "camt-after-a-byte-order-mark", "mt940", "mt940-crlf"],
)
def test_the_format_is_told_by_the_content(data: bytes, expected: StatementFormat) -> None:
    assert read_statement(data).format is expected
    assert read_statement(data, csv_mapping=MAPPING).format is expected


def test_a_csv_is_read_with_its_mapping() -> None:
    assert read_statement(CSV, csv_mapping=MAPPING).format is StatementFormat.CSV


@pytest.mark.parametrize(
    "data",
    [CSV, b"", b"%PDF-1.7\n", b":20:REFERENCE ONLY\n"],
    ids=["csv", "empty", "pdf", "mt-no-60F"],
)
def test_an_unknown_format_is_refused_naming_the_file(data: bytes) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data)

    assert raised.value.field == "FILE"


def camt_of(entries: int) -> bytes:
    return statement(
        "".join(entry(references=f"<AcctSvcrRef>B-{n}</AcctSvcrRef>") for n in range(entries))
    )


@pytest.mark.parametrize(
    ("data", "mapping", "lines"),
    [
        (camt_of(5), None, 5),
        (MT940, None, 4),
        (CSV.replace(b"\n", b"\nR2,-1.00,2026-11-03\n", 1), MAPPING, 2),
    ],
    ids=["camt", "mt940", "csv"],
)
def test_a_statement_over_the_line_limit_is_refused_naming_it(
    data: bytes, mapping: CsvMapping | None, lines: int
) -> None:
    assert len(read_statement(data, csv_mapping=mapping, max_lines=lines).lines) == lines
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data, csv_mapping=mapping, max_lines=lines - 1)

    assert raised.value.field == "FILE"
    assert f"more than {lines - 1} entries" in raised.value.problem
    assert "FUNDSAGA_STATEMENT_MAX_LINES" in raised.value.problem


def test_a_camt_statement_is_refused_at_the_entry_over_the_limit_not_after_the_file() -> None:
    """The entry after the limit is malformed: refused for the limit, it was never read."""
    data = camt_of(3).replace(b"</Stmt>", entry(amount="not money").encode() + b"</Stmt>")

    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data, max_lines=2)

    assert "FUNDSAGA_STATEMENT_MAX_LINES" in raised.value.problem
