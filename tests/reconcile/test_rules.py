"""Matching rules: each line is judged by the highest-priority rule that applies to it (by the
rail account its statement names, its currency, its kind), the settings' policy below them all;
tolerances in amount (absolute or percent, exact) and days, required fields; each break names
the rule that judged it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from sagas.ledger import Ledger
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import (
    CLOSED_STATUSES,
    AmountTolerance,
    BreakKind,
    BreakView,
    MatchingRules,
    ReconcilePolicy,
    Reconciliation,
    Statement,
    StatementFormat,
    StatementLine,
    parse_rules,
)
from tests.ledger._money import eur
from tests.reconcile.test_matching import line, new_action, sent, settle, today

POLICY = ReconcilePolicy(grace=timedelta(0))

RULES = """
[[rules]]
name = "anywhere"
priority = 1
amount_tolerance = "1%"

[[rules]]
name = "bank-a-exact"
priority = 10
accounts = ["BANK-A"]
amount_tolerance = "0"

[[rules]]
name = "returns"
priority = 5
kinds = ["return"]
require = ["end_to_end_id"]
"""


def books_under(
    ledger: Ledger, rules: str = "", policy: ReconcilePolicy = POLICY
) -> Reconciliation:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    return Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], policy, parse_rules(rules, policy))


def on(account: str, *lines: StatementLine, statement_id: str = "S1") -> Statement:
    return Statement(
        format=StatementFormat.CAMT053,
        statement_id=statement_id,
        account=account,
        currency="EUR",
        period_start=datetime.combine(today(), time(0), UTC),
        period_end=datetime.combine(today(), time(23, 59, 59), UTC),
        lines=lines,
    )


def load(books: Reconciliation, read: Statement) -> None:
    books.import_statement(
        read, repr(read).encode(), name="s.xml", imported_by="t", action_id=new_action()
    )


def still_open(books: Reconciliation) -> list[BreakView]:
    """A movement a later statement books was missing after the earlier one: matched since."""
    return [b for b in books.breaks() if b.status not in CLOSED_STATUSES]


def by_reference(books: Reconciliation) -> dict[str, BreakView]:
    named = {sent(key): key for key in ("a", "b")}
    return {named.get(b.reference or "", b.reference or ""): b for b in still_open(books)}


def test_the_highest_priority_rule_that_applies_to_the_line_decides(ledger: Ledger) -> None:
    books = books_under(ledger, RULES)
    for key in ("a", "b"):
        settle(ledger, key, 10_000)

    # 0.50 short of 100.00: within "anywhere"'s 1%, beyond "bank-a-exact"'s 0.
    load(books, on("BANK-A", line("a", 9_950, bank="A1")))
    load(books, on("BANK-B", line("b", 9_950, bank="B1")))

    found = by_reference(books)
    assert set(found) == {"a"}
    assert found["a"].kind is BreakKind.AMOUNT_MISMATCH
    assert found["a"].detail.endswith("(rule bank-a-exact)")
    assert [m.status for m in books.movements()] == [
        f"break {found['a'].break_id} amount_mismatch (open)",
        "matched to statement line 2 (reference)",
    ]


def test_a_line_no_rule_applies_to_is_judged_by_the_settings(ledger: Ledger) -> None:
    narrow = '[[rules]]\nname = "usd"\npriority = 3\ncurrencies = ["USD"]\namount_tolerance = "5%"'
    books = books_under(ledger, narrow, replace(POLICY, amount_tolerance_minor=20))
    settle(ledger, "a", 10_000)
    settle(ledger, "b", 10_000)

    load(books, on("BANK-A", line("a", 9_980, bank="A1"), line("b", 9_979, bank="A2")))

    (only,) = books.breaks()
    assert (only.reference, only.kind) == (sent("b"), BreakKind.AMOUNT_MISMATCH)
    assert only.detail.endswith("(rule default)")


@pytest.mark.parametrize(
    ("booked", "broken"),
    [(1_006, False), (1_007, True), (996, False), (995, True)],
    ids=["5-over", "6-over", "5-under", "6-under"],
)
def test_a_percent_tolerance_is_exact_on_odd_amounts(
    ledger: Ledger, booked: int, broken: bool
) -> None:
    """0.5% of 10.01 EUR is 5.005 cents: a difference of 5 cents is within it, 6 is not."""
    books = books_under(ledger, '[[rules]]\nname = "half"\npriority = 1\namount_tolerance = "0.5%"')
    settle(ledger, "a", 1_001)

    load(books, on("BANK-A", line("a", booked, bank="A1")))

    kinds = [b.kind for b in books.breaks()]
    assert kinds == ([BreakKind.AMOUNT_MISMATCH] if broken else [])


def test_tolerances_are_fractions_of_minor_units_never_floats() -> None:
    half = AmountTolerance(percent=Decimal("0.5"))
    assert half.allowed(1_001, "EUR") == Fraction(5005, 1000)
    assert AmountTolerance(percent=Decimal("0.1")).allowed(-3, "EUR") == Fraction(3, 1000)
    assert AmountTolerance(amount=Decimal("0.05")).allowed(1, "EUR") == 5
    assert AmountTolerance(amount=Decimal("5")).allowed(1, "JPY") == 5
    assert AmountTolerance(minor=7).allowed(1_000_000, "EUR") == 7
    # 0.1% of 1,000,000,000,000,000.01 EUR: exact where a float is not.
    assert half.allows(500_000_000_000_000_000, 100_000_000_000_000_000_001, "EUR")
    assert not half.allows(500_000_000_000_000_006, 100_000_000_000_000_000_001, "EUR")


def test_a_percent_tolerance_also_finds_the_movement_by_amount(ledger: Ledger) -> None:
    books = books_under(ledger, '[[rules]]\nname = "two"\npriority = 1\namount_tolerance = "2%"')
    settle(ledger, "a", 10_000)

    load(books, on("BANK-A", line(None, 9_801, bank="A1"), line(None, 9_799, bank="A2")))

    (missing,) = books.breaks()
    assert missing.kind is BreakKind.MISSING_IN_LEDGER
    assert missing.statement_amount == eur(9_799)
    assert missing.detail.endswith("(rule two)")
    (status,) = [m.status for m in books.movements()]
    assert status == "matched to statement line 1 (amount_date)"


def test_requiring_the_end_to_end_id_stops_the_amount_and_date_fallback(ledger: Ledger) -> None:
    strict = (
        '[[rules]]\nname = "sepa-strict"\npriority = 1\naccounts = ["BANK-A"]\n'
        'require = ["end_to_end_id"]'
    )
    books = books_under(ledger, strict)
    settle(ledger, "a", 2_500)
    settle(ledger, "b", 2_500)

    load(books, on("BANK-A", line(None, 2_500, bank="A1")))
    load(books, on("BANK-B", line(None, 2_500, bank="B1")))

    left = still_open(books)
    judged = sorted((b.kind, b.line_id, b.detail.rsplit("(rule ", 1)[-1]) for b in left)
    assert judged == [
        (BreakKind.MISSING_IN_LEDGER, 1, "sepa-strict)"),
        (BreakKind.MISSING_IN_STATEMENT, None, "default: the settings' cut-off and grace)"),
    ]
    # The BANK-B line, under the default rule, is matched by amount and date.
    assert [m.status.split(" (")[0] for m in books.movements()] == [
        "matched to statement line 2",
        f"break {left[1].break_id} missing_in_statement",
    ]


def test_requiring_the_value_date_breaks_a_match_valued_too_late(ledger: Ledger) -> None:
    dated = (
        '[[rules]]\nname = "same-day"\npriority = 1\ndate_tolerance_days = 1\n'
        'require = ["value_date"]'
    )
    books = books_under(ledger, dated)
    settle(ledger, "a", 1_000)
    settle(ledger, "b", 1_000)
    late = replace(line("a", 1_000, bank="A1"), value_date=today() + timedelta(days=3))
    next_day = replace(line("b", 1_000, bank="A2"), value_date=today() + timedelta(days=1))

    load(books, on("BANK-A", late, next_day))

    (broken,) = books.breaks()
    assert (broken.kind, broken.reference) == (BreakKind.VALUE_DATE_MISMATCH, sent("a"))
    assert f"values it {today() + timedelta(days=3)}" in broken.detail
    assert broken.detail.endswith("more than 1 day(s) apart (rule same-day)")
    assert [m.status for m in books.movements()] == [
        f"break {broken.break_id} value_date_mismatch (open)",
        "matched to statement line 2 (reference)",
    ]


def test_a_rule_s_fee_is_the_fee_agreed_for_its_lines(ledger: Ledger) -> None:
    fees = (
        '[[rules]]\nname = "charged"\npriority = 1\naccounts = ["BANK-A"]\nfees = { EUR = "0.25" }'
    )
    books = books_under(ledger, fees)
    settle(ledger, "a", 1_000)
    settle(ledger, "b", 1_000)

    load(books, on("BANK-A", line("a", 1_000, bank="A1", fee=25)))
    load(books, on("BANK-B", line("b", 1_000, bank="B1", fee=25)))

    (broken,) = still_open(books)
    assert (broken.kind, broken.reference) == (BreakKind.FEE_DIFFERENCE, sent("b"))
    assert broken.detail.endswith("(rule default)")


def test_a_rule_leaves_out_what_the_settings_already_say() -> None:
    policy = ReconcilePolicy(date_tolerance=timedelta(days=4), amount_tolerance_minor=3)
    rules = parse_rules('[[rules]]\nname = "kinds"\npriority = 2\nkinds = ["fee"]', policy)

    (rule, default) = rules.rules
    assert (rule.name, default.name) == ("kinds", "default")
    assert rule.date_tolerance == timedelta(days=4)
    assert rule.amount_tolerance == default.amount_tolerance == AmountTolerance(minor=3)


def test_no_rules_file_is_the_settings_alone() -> None:
    assert parse_rules("", POLICY) == MatchingRules.of(POLICY)
    assert [r.name for r in MatchingRules.of(POLICY).rules] == ["default"]


def test_the_rules_hash_tells_two_rule_sets_apart_and_not_their_order() -> None:
    one = '[[rules]]\nname = "a"\npriority = 1\namount_tolerance = "1%"\n'
    two = '[[rules]]\nname = "b"\npriority = 2\nkinds = ["fee"]\n'
    facts = parse_rules(one + two, POLICY).facts()

    assert facts["rules_sha256"] == parse_rules(two + one, POLICY).facts()["rules_sha256"]
    assert (
        facts["rules_sha256"]
        != parse_rules(one.replace("1%", "2%") + two, POLICY).facts()["rules_sha256"]
    )
    stated = facts["rules"]
    assert isinstance(stated, list)
    assert [rule["name"] for rule in stated if isinstance(rule, dict)] == ["b", "a", "default"]


def test_a_movement_no_line_books_is_judged_by_the_settings_cut_off_and_grace(
    ledger: Ledger,
) -> None:
    """Rules judge lines; whatever rules the file holds, a movement no line books is missing
    after the settings' cut-off and grace."""
    books = books_under(ledger, RULES, replace(POLICY, grace=timedelta(days=2)))
    settle(ledger, "a", 1_000)

    load(books, on("BANK-A"))

    assert books.breaks() == []
    assert [m.status for m in books.movements()] == ["awaiting statement"]
