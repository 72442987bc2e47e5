"""An MT940 statement as a bank's portal delivers it, read into statement lines."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import LineDirection, LineKind, StatementFormat, read_statement

STATEMENT = b"""\
:20:STMT20261103
:25:NL91ABNA0417164300
:28C:00307/001
:60F:C261102EUR10000,00
:61:2611031103D250,00NTRFPAYOUT-0001//BNK-8841
:86:/EREF/PAYOUT-0001/REMI/Payout to supplier
:61:2611031103D1,75NCHGNONREF//BNK-8842
:86:Charges for transfers of 2026-11-03
:61:2611041103RD250,00NTRFPAYOUT-0001//BNK-8843
:86:/RTRN/AC04/EREF/PAYOUT-0001
:61:261103C1200,NMSCNONREF
:86:Top-up
:62F:C261103EUR11198,25
:64:C261103EUR11198,25
"""


def _eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


def test_a_statement_with_a_charge_and_a_reversal_reads_to_its_lines() -> None:
    read = read_statement(STATEMENT)

    assert read.format is StatementFormat.MT940
    assert (read.statement_id, read.account, read.currency) == (
        "STMT20261103/00307/001",
        "NL91ABNA0417164300",
        "EUR",
    )
    assert read.period_start == datetime(2026, 11, 2, tzinfo=UTC)
    assert read.period_end == datetime(2026, 11, 4, tzinfo=UTC)
    assert [
        (x.bank_reference, x.end_to_end_id, x.direction, x.kind, x.amount, x.value_date)
        for x in read.lines
    ] == [
        ("BNK-8841", "PAYOUT-0001", "debit", "payout", _eur(25000), date(2026, 11, 3)),
        ("BNK-8842", None, "debit", "fee", _eur(175), date(2026, 11, 3)),
        ("BNK-8843", "PAYOUT-0001", "credit", "return", _eur(25000), date(2026, 11, 4)),
        (None, None, "credit", "other", _eur(120000), date(2026, 11, 3)),
    ]
    assert {line.booking_date for line in read.lines} == {date(2026, 11, 3)}
    assert read.lines[0].description == "Payout to supplier"
    assert all(line.fee is None for line in read.lines)


def test_a_reversal_of_a_credit_is_a_debit_return() -> None:
    data = STATEMENT.replace(b"C1200,NMSC", b"RC1200,NTRF")

    line = read_statement(data).lines[-1]

    assert (line.direction, line.kind) == (LineDirection.DEBIT, LineKind.RETURN)


def test_an_amount_with_more_decimals_than_its_currency_is_refused() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(STATEMENT.replace(b"D1,75NCHG", b"D1,755NCHG"))

    assert raised.value.field == ":61:[2] amount"


def test_read_statement_refuses_a_file_of_two_statements_naming_read_statements() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(STATEMENT + STATEMENT.replace(b"STMT20261103", b"STMT20261104"))

    assert raised.value.field == "FILE"
    assert "holds 2 statements" in raised.value.problem
    assert "read_statements" in raised.value.problem


def test_a_field_the_library_cannot_match_is_named_by_its_tag() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statement(STATEMENT.replace(b":61:261103C1200,NMSCNONREF", b":61:yesterday"))

    assert raised.value.field == ":61:"
