"""The simulator's statements: the payouts it settled over HTTP, stated as camt.053, camt.054
and CSV that the official ISO 20022 schemas accept and `read_statement` reads back line for line,
with each injected break (fee, other amount, duplicate, omission, return, unknown line)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from xml.etree import ElementTree

import pytest

from sagas.foundations import Money, parse_money
from sagas.reconcile import CsvMapping, LineDirection, LineKind, StatementLine, read_statement
from tests.provider.http import call
from tests.reconcile.schemas import schema_errors
from tooling.provider import ProviderProcess

SCHEMAS = {"camt053": "camt.053.001.08", "camt054": "camt.054.001.08"}
_CAMT = "{urn:iso:std:iso:20022:tech:xsd:camt.053.001.08}"


@dataclass(frozen=True)
class Stated:
    """A line the statement must state, as the test drove it."""

    key: str
    direction: LineDirection
    amount: Money
    fee: Money | None
    kind: LineKind
    day: date

    @classmethod
    def of(cls, line: StatementLine) -> Stated:
        assert line.end_to_end_id is not None
        assert line.booking_date == line.value_date
        return cls(
            line.end_to_end_id, line.direction, line.amount, line.fee, line.kind, line.booking_date
        )


@dataclass
class Day:
    provider: ProviderProcess
    stated: list[Stated]
    days: set[date]

    def lines(self, fmt: str = "camt053", currency: str = "EUR") -> list[StatementLine]:
        """The lines of every day the test's bookings fell on (two only across midnight)."""
        mapping = CsvMapping.simulator() if fmt == "csv" else None
        return [
            line
            for day in sorted(self.days)
            for line in read_statement(
                self.provider.statement(day, fmt, currency), csv_mapping=mapping
            ).lines
        ]


def _key(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:12]}"


def _settle(provider: ProviderProcess, key: str, amount: str, currency: str, **rule: Any) -> date:
    rule = {"key": key, "behaviour": "settle-callback", "settle_after_seconds": 0} | rule
    assert call(f"{provider.url}/scenarios", "POST", rule).status == 201
    payout = {"key": key, "account": "acct-1", "amount": amount, "currency": currency}
    assert call(f"{provider.url}/payouts", "POST", payout).status == 200
    settled = call(f"{provider.url}/payouts/{key}").body
    assert settled["status"] == "settled"
    return datetime.fromisoformat(settled["settled_at"]).date()


@pytest.fixture(scope="module")
def day() -> Iterator[Day]:
    with ProviderProcess() as provider:
        stated: list[Stated] = []
        days: set[date] = set()

        def pay(name: str, amount: str, *, currency: str = "EUR", **rule: Any) -> None:
            key = _key(name)
            on = _settle(provider, key, amount, currency, **rule)
            days.add(on)
            if rule.get("omit_from_statement"):
                return
            money = parse_money(rule.get("statement_amount", amount), currency)
            fee = parse_money(rule["fee"], currency) if "fee" in rule else None
            payout = Stated(key, LineDirection.DEBIT, money, fee, LineKind.PAYOUT, on)
            stated.extend([payout] * (2 if rule.get("duplicate_on_statement") else 1))
            if "returned" in rule:
                back = parse_money(amount, currency)
                stated.append(Stated(key, LineDirection.CREDIT, back, None, LineKind.RETURN, on))

        pay("plain", "12.50")
        pay("fee", "40.00", fee="0.35")
        pay("returned", "25.00", returned="AC04")
        pay("twice", "7.10", duplicate_on_statement=True)
        pay("other-amount", "30.00", statement_amount="29.99")
        pay("omitted", "9.00", omit_from_statement=True)
        pay("yen", "1500", currency="JPY", fee="20")
        unknown = _key("unknown")
        added = call(
            f"{provider.url}/statement-lines",
            "POST",
            {"key": unknown, "amount": "5.00", "currency": "EUR"},
        )
        assert added.status == 201
        booked = datetime.fromisoformat(added.body["booked_at"]).date()
        days.add(booked)
        five = Money.of(500, "EUR")
        stated.append(Stated(unknown, LineDirection.DEBIT, five, None, LineKind.PAYOUT, booked))
        yield Day(provider, stated, days)


def _sorted(lines: list[Stated]) -> list[Stated]:
    return sorted(lines, key=lambda s: (s.key, s.direction, s.amount.minor))


def _eur(stated: list[Stated]) -> list[Stated]:
    return _sorted([s for s in stated if s.amount.currency.code == "EUR"])


@pytest.mark.parametrize("fmt", ["camt053", "camt054"])
def test_the_camt_files_are_valid_by_the_official_schema(day: Day, fmt: str) -> None:
    for on in day.days:
        data = day.provider.statement(on, fmt)

        assert schema_errors(data, SCHEMAS[fmt]) == []
        # The schema is really checked: a currency-less amount fails it.
        assert schema_errors(data.replace(b' Ccy="EUR"', b"", 1), SCHEMAS[fmt]) != []


@pytest.mark.parametrize("fmt", ["camt053", "camt054", "csv"])
def test_each_file_reads_back_to_exactly_what_was_settled(day: Day, fmt: str) -> None:
    lines = day.lines(fmt)

    assert _sorted([Stated.of(line) for line in lines]) == _eur(day.stated)
    assert len({line.bank_reference for line in lines}) == len(lines)
    assert all((line.bank_reference or "").startswith("PRV-") for line in lines)
    [returned] = [line for line in lines if line.kind is LineKind.RETURN]
    assert returned.description == "return reason AC04"


def test_the_csv_states_the_same_lines_as_the_camt_053(day: Day) -> None:
    # A CSV row states no transaction details (camt TxDtls): the lines are otherwise the same.
    assert day.lines("csv") == [replace(line, transactions=()) for line in day.lines("camt053")]


def test_a_statement_holds_its_currency_only(day: Day) -> None:
    lines = day.lines(currency="JPY")

    assert [Stated.of(line) for line in lines] == [
        s for s in day.stated if s.amount.currency.code == "JPY"
    ]
    assert lines[0].fee == Money.of(20, "JPY")


def test_the_closing_balance_is_the_opening_one_moved_by_every_line_and_fee(day: Day) -> None:
    for on in day.days:
        data = day.provider.statement(on)
        balances = _balances(data)

        moved = sum(_movement(line) for line in read_statement(data).lines)

        assert balances["CLBD"] == balances["OPBD"] + moved


def _movement(line: StatementLine) -> Decimal:
    amount = line.amount.decimal()
    fee = Decimal(0) if line.fee is None else line.fee.decimal()
    return (amount if line.direction is LineDirection.CREDIT else -amount) - fee


def test_a_day_without_bookings_is_an_empty_valid_statement(day: Day) -> None:
    data = day.provider.statement(date(2020, 1, 6))

    assert schema_errors(data, SCHEMAS["camt053"]) == []
    assert read_statement(data).lines == ()
    assert _balances(data)["OPBD"] == _balances(data)["CLBD"]


def _balances(data: bytes) -> dict[str, Decimal]:
    found = {}
    for balance in ElementTree.fromstring(data).iter(f"{_CAMT}Bal"):
        code = balance.findtext(f"{_CAMT}Tp/{_CAMT}CdOrPrtry/{_CAMT}Cd")
        amount = Decimal(balance.findtext(f"{_CAMT}Amt") or "")
        sign = 1 if balance.findtext(f"{_CAMT}CdtDbtInd") == "CRDT" else -1
        found[str(code)] = sign * amount
    return found


@pytest.mark.parametrize(
    "query", ["format=pdf", "date=03.11.2026", "currency=EURO", "date=2026-02-30"]
)
def test_a_bad_statement_query_is_400(day: Day, query: str) -> None:
    assert call(f"{day.provider.url}/statements?{query}").status == 400


@pytest.mark.parametrize(
    "rule",
    [
        {"fee": "0.3.5"},
        {"fee": 0.35},
        {"statement_amount": "-1"},
        {"duplicate_on_statement": "yes"},
        {"returned": "account closed"},
    ],
)
def test_bad_statement_options_are_400(day: Day, rule: dict[str, Any]) -> None:
    scenario = {"key": _key("bad"), "behaviour": "settle-callback"} | rule

    assert call(f"{day.provider.url}/scenarios", "POST", scenario).status == 400


def test_a_fee_finer_than_the_payout_s_currency_is_refused_with_the_payout(day: Day) -> None:
    key = _key("finer")
    rule = {"key": key, "behaviour": "settle-callback", "fee": "0.5"}
    assert call(f"{day.provider.url}/scenarios", "POST", rule).status == 201
    payout = {"key": key, "account": "acct-1", "amount": "100", "currency": "JPY"}

    refused = call(f"{day.provider.url}/payouts", "POST", payout)

    assert refused.status == 400
    assert "fee" in refused.body["error"]
    assert call(f"{day.provider.url}/payouts/{key}").status == 404


@pytest.mark.parametrize(
    "body",
    [
        {"key": "k", "amount": "5.00", "currency": "EUR", "direction": "sideways"},
        {"key": "k", "amount": "5.001", "currency": "EUR"},
        {"key": "k", "amount": 5, "currency": "EUR"},
        {"key": "k", "amount": "5.00"},
        {"key": "k", "amount": "5.00", "currency": "EUR", "when": "now"},
    ],
)
def test_a_bad_statement_line_is_400(day: Day, body: dict[str, Any]) -> None:
    assert call(f"{day.provider.url}/statement-lines", "POST", body).status == 400


def test_a_payout_no_statement_can_state_still_settles(day: Day) -> None:
    key = _key("finer-than-cents")

    on = _settle(day.provider, key, "12.505", "EUR")

    stated = read_statement(day.provider.statement(on)).lines
    assert key not in {line.end_to_end_id for line in stated}
