"""An amount is read up to the five fraction digits ISO 20022 allows when it is exact in its
currency (`8.850` EUR is 8.85) and refused, naming its field, when it is not (`8.855` EUR,
`100.5` JPY): the same rule in camt, MT940 and CSV."""

from __future__ import annotations

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import CsvMapping, read_statement
from sagas.reconcile.formats import statement_money
from tests.reconcile.camt_documents import entry, statement
from tests.reconcile.test_mt940 import STATEMENT as MT940


@pytest.mark.parametrize(
    ("text", "code", "minor"),
    [
        ("8.850", "EUR", 885),
        ("8.85000", "EUR", 885),
        ("100", "JPY", 100),
        ("100.000", "JPY", 100),
        ("100.", "EUR", 10000),
        ("0.000", "EUR", 0),
        ("1.234", "BHD", 1234),
        ("1.23400", "BHD", 1234),
    ],
)
def test_an_amount_exact_in_its_currency_is_read(text: str, code: str, minor: int) -> None:
    assert statement_money(text, code, field="Amt") == Money.of(minor, code)


@pytest.mark.parametrize(
    ("text", "code", "problem"),
    [
        ("8.855", "EUR", "whole number of EUR minor units"),
        ("8.85001", "EUR", "whole number of EUR minor units"),
        ("100.5", "JPY", "whole number of JPY minor units"),
        ("8.850000", "EUR", "more than 5 decimals"),
        ("-8.85", "EUR", "plain decimal"),
        ("8,85", "EUR", "plain decimal"),
        ("", "EUR", "plain decimal"),
    ],
)
def test_an_amount_not_exact_in_its_currency_is_refused_naming_the_field(
    text: str, code: str, problem: str
) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        statement_money(text, code, field="Stmt/Ntry[1]/Amt")

    assert raised.value.field == "Stmt/Ntry[1]/Amt"
    assert problem in raised.value.problem


def test_a_camt_entry_and_its_transaction_of_three_decimals_in_euro() -> None:
    (line,) = read_statement(statement(entry(amount="8.850"))).lines

    assert line.amount == Money.of(885, "EUR")
    assert [t.amount for t in line.transactions] == [Money.of(885, "EUR")]


def test_a_camt_entry_not_exact_in_euro_is_refused_naming_it() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(statement(entry(amount="8.855")))

    assert raised.value.field == "Stmt/Ntry[1]/Amt"


def test_a_camt_balance_of_three_decimals_in_euro() -> None:
    data = statement(entry()).replace(b">1000.00<", b">1000.000<")

    assert read_statement(data).opening is not None


def test_a_camt_balance_not_exact_in_euro_is_refused_naming_it() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(statement(entry()).replace(b">1000.00<", b">1000.001<"))

    assert raised.value.field.startswith("Stmt/Bal[1]")


def test_an_mt940_balance_of_three_decimals_in_euro() -> None:
    data = MT940.replace(b":60F:C261102EUR10000,00", b":60F:C261102EUR10000,000")

    opening = read_statement(data).opening

    assert opening is not None
    assert opening.amount == Money.of(1000000, "EUR")


def test_an_mt940_line_of_three_decimals_in_euro() -> None:
    data = MT940.replace(b"D1,75NCHG", b"D1,750NCHG")

    assert read_statement(data).lines[1].amount == Money.of(175, "EUR")


def test_an_mt940_line_not_exact_in_euro_is_refused_naming_it() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(MT940.replace(b"D1,75NCHG", b"D1,755NCHG"))

    assert raised.value.field == ":61:[2] amount"


@pytest.mark.parametrize(
    ("code", "cell", "minor"),
    [("EUR", "8.850", 885), ("JPY", "100", 100), ("JPY", "1,000", 1000)],
)
def test_a_csv_amount_exact_in_its_currency_is_read(code: str, cell: str, minor: int) -> None:
    data = f'day,amount\n2026-11-03,"{cell}"\n'.encode()
    mapping = CsvMapping(
        booking_date_column="day",
        amount_column="amount",
        account="ACC-1",
        currency=code,
        thousands_separator=",",
    )

    (line,) = read_statement(data, csv_mapping=mapping).lines

    assert line.amount == Money.of(minor, code)


@pytest.mark.parametrize(("code", "cell"), [("EUR", "8.855"), ("JPY", "100.5")])
def test_a_csv_amount_not_exact_in_its_currency_is_refused_naming_row_and_column(
    code: str, cell: str
) -> None:
    data = f"day,amount\n2026-11-03,1\n2026-11-03,{cell}\n".encode()
    mapping = CsvMapping(
        booking_date_column="day", amount_column="amount", account="ACC-1", currency=code
    )

    with pytest.raises(InvalidRequestError) as raised:
        read_statement(data, csv_mapping=mapping)

    assert raised.value.field == 'row 3, column "amount"'
    assert code in raised.value.problem
