"""Matching statement lines against the ledger's rail movements: each kind of break found,
nothing found twice, and breaks that match later close by themselves."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from sagas import InvalidRequestError
from sagas.engine import end_to_end_id
from sagas.foundations import Money
from sagas.ledger import Ledger, Leg, funding_account_id, system_account_id
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import (
    BreakKind,
    BreakStatus,
    LineDirection,
    LineKind,
    ReconcilePolicy,
    Reconciliation,
    Statement,
    StatementFormat,
    StatementLine,
)
from tests.ledger._money import eur


def new_action() -> str:
    """The id of an operator action, as the worker's statement workflow gives each."""
    return f"statement-action-{uuid.uuid4().hex[:12]}"


def today() -> date:
    """Read when a test builds its statement, not at import: a suite that runs across midnight
    (UTC) still dates each statement the day its entries were posted."""
    return datetime.now(UTC).date()


def end_of_day(day: date | None = None) -> datetime:
    return datetime.combine(day or today(), time(23, 59, 59), UTC)


STRICT = ReconcilePolicy(grace=timedelta(0))
"""No grace: a movement the day's statement lacks is a break as soon as it is imported."""


def settle(ledger: Ledger, key: str, minor: int) -> int:
    """A payout's settlement as its `settle` step posts it: clearing to the outside world."""
    saga = f"payout-{key}"
    clearing = system_account_id(PAYOUT_CLEARING, "EUR")
    ledger.transfer(f"{saga}:capture:action", "alice", clearing, eur(minor), saga_id=saga)
    entry = ledger.post(
        f"{saga}:settle:action",
        [Leg(clearing, eur(-minor)), Leg(funding_account_id("EUR"), eur(minor))],
        kind=PAYOUT_ENTRY,
        saga_id=saga,
    )
    return entry.entry_id


def sent(key: str) -> str:
    """The end-to-end id the payout of `key` gave the provider."""
    return end_to_end_id(f"payout-{key}:submit:action")


def line(
    reference: str | None,
    minor: int,
    *,
    bank: str,
    fee: int | None = None,
    direction: LineDirection = LineDirection.DEBIT,
    kind: LineKind = LineKind.PAYOUT,
) -> StatementLine:
    return StatementLine(
        bank_reference=bank,
        end_to_end_id=None if reference is None else sent(reference),
        direction=direction,
        amount=eur(minor),
        booking_date=today(),
        value_date=today(),
        kind=kind,
        fee=None if fee is None else Money.of(fee, "EUR"),
    )


def statement(*lines: StatementLine, statement_id: str = "S1") -> Statement:
    return Statement(
        format=StatementFormat.CAMT053,
        statement_id=statement_id,
        account="PROVIDER-EUR",
        currency="EUR",
        period_start=datetime.combine(today(), time(0), UTC),
        period_end=end_of_day(),
        lines=lines,
    )


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    return Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], STRICT)


def load(books: Reconciliation, read: Statement, content: bytes = b"") -> None:
    books.import_statement(
        read, content or repr(read).encode(), name="s.xml", imported_by="t", action_id=new_action()
    )


KEYS = ("ok", "omitted", "changed", "dup", "fee", "unknown", "a", "elsewhere")


def kinds(books: Reconciliation) -> dict[str | None, BreakKind]:
    """Each break's kind by the payout key it is about."""
    named = {sent(key): f"payout-{key}" for key in KEYS}
    return {named.get(b.reference or ""): b.kind for b in books.breaks()}


def test_every_line_matched_by_reference_leaves_no_break(books: Reconciliation) -> None:
    settle(books.ledger, "a", 1_000)
    settle(books.ledger, "b", 2_550)

    load(books, statement(line("a", 1_000, bank="P1"), line("b", 2_550, bank="P2")))

    assert books.breaks() == []
    assert [m.status for m in books.movements()] == [
        "matched to statement line 1 (reference)",
        "matched to statement line 2 (reference)",
    ]


def test_each_kind_of_break_is_found_with_its_kind(books: Reconciliation) -> None:
    for key, minor in (("ok", 100), ("omitted", 200), ("changed", 300), ("dup", 400)):
        settle(books.ledger, key, minor)
    settle(books.ledger, "fee", 500)

    load(
        books,
        statement(
            line("ok", 100, bank="P1"),
            line("changed", 301, bank="P2"),
            line("dup", 400, bank="P3"),
            line("dup", 400, bank="P4"),
            line("fee", 500, bank="P5", fee=25),
            line("unknown", 700, bank="P6"),
        ),
    )

    assert kinds(books) == {
        "payout-omitted": BreakKind.MISSING_IN_STATEMENT,
        "payout-changed": BreakKind.AMOUNT_MISMATCH,
        "payout-dup": BreakKind.DUPLICATE,
        "payout-fee": BreakKind.FEE_DIFFERENCE,
        "payout-unknown": BreakKind.MISSING_IN_LEDGER,
    }
    changed = books.breaks(kind=BreakKind.AMOUNT_MISMATCH)[0]
    assert (changed.ledger_amount, changed.statement_amount) == (eur(300), eur(301))
    fee = books.breaks(kind=BreakKind.FEE_DIFFERENCE)[0]
    assert (fee.ledger_amount, fee.statement_amount) == (eur(0), eur(25))


def test_the_agreed_fee_is_no_break_and_another_is(ledger: Ledger, books: Reconciliation) -> None:
    agreed = Reconciliation(
        ledger, [EXTERNAL_PAYOUT_SAGA], ReconcilePolicy(fees={"EUR": eur(25)}, grace=timedelta(0))
    )
    settle(ledger, "a", 1_000)
    settle(ledger, "b", 1_000)

    load(
        agreed, statement(line("a", 1_000, bank="P1", fee=25), line("b", 1_000, bank="P2", fee=30))
    )

    assert [(b.kind, b.statement_amount) for b in agreed.breaks()] == [
        (BreakKind.FEE_DIFFERENCE, eur(30))
    ]


def test_a_line_without_reference_matches_by_amount_and_value_date(books: Reconciliation) -> None:
    settle(books.ledger, "a", 1_234)

    load(books, statement(line(None, 1_234, bank="P1")))

    assert books.breaks() == []
    assert books.movements()[0].status == "matched to statement line 1 (amount_date)"


def test_a_line_naming_a_foreign_reference_is_not_matched_by_amount(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "a", 1_234)

    load(books, statement(line("elsewhere", 1_234, bank="P1")))

    assert kinds(books) == {
        "payout-elsewhere": BreakKind.MISSING_IN_LEDGER,
        "payout-a": BreakKind.MISSING_IN_STATEMENT,
    }


def test_a_return_is_missing_in_the_ledger_not_a_duplicate(books: Reconciliation) -> None:
    settle(books.ledger, "a", 900)

    load(
        books,
        statement(
            line("a", 900, bank="P1"),
            line("a", 900, bank="P2", direction=LineDirection.CREDIT, kind=LineKind.RETURN),
        ),
    )

    (found,) = books.breaks()
    assert (found.kind, found.statement_amount) == (BreakKind.MISSING_IN_LEDGER, eur(900))


def test_importing_the_same_file_twice_adds_nothing(books: Reconciliation) -> None:
    settle(books.ledger, "a", 100)
    read = statement(line("a", 100, bank="P1"), line("x", 5, bank="P2"))
    first = books.import_statement(
        read, b"<file/>", name="s.xml", imported_by="t", action_id="first"
    )

    again = books.import_statement(
        read, b"<file/>", name="s.xml", imported_by="t", action_id="again"
    )

    assert (first.new, first.added_lines, len(first.run.opened)) == (True, 2, 1)
    assert (again.new, again.added_lines, again.run.matched, again.run.opened) == (
        False,
        0,
        0,
        [],
    )
    assert len(books.breaks()) == 1


def test_a_line_delivered_again_in_another_file_is_kept_once(books: Reconciliation) -> None:
    settle(books.ledger, "a", 100)
    load(books, statement(line("a", 100, bank="P1")), b"intraday")

    later = books.import_statement(
        statement(line("a", 100, bank="P1"), statement_id="S2"),
        b"end of day",
        name="eod.xml",
        imported_by="t",
        action_id="eod",
    )

    assert (later.new, later.added_lines) == (True, 0)
    assert books.breaks() == []


def test_breaks_close_by_themselves_once_the_ledger_books_the_movement(
    books: Reconciliation,
) -> None:
    load(books, statement(line("late", 800, bank="P1")))
    (missing,) = books.breaks()
    assert missing.status is BreakStatus.OPEN

    settle(books.ledger, "late", 800)
    result = books.run(action_id=new_action())

    assert [b.break_id for b in result.closed] == [missing.break_id]
    assert books.find_break(missing.break_id).status is BreakStatus.MATCHED
    assert books.run(action_id=new_action()).closed == []


def test_within_the_grace_period_a_missing_line_is_no_break(ledger: Ledger) -> None:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(10_000))
    patient = Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], ReconcilePolicy())
    settle(ledger, "a", 100)

    load(patient, statement())

    assert patient.breaks() == []
    assert patient.movements()[0].status == "awaiting statement"


def test_an_explained_break_is_resolved_once_and_stays_closed(books: Reconciliation) -> None:
    load(books, statement(line("x", 5, bank="P1")))
    (found,) = books.breaks()

    with pytest.raises(InvalidRequestError, match="--note"):
        books.explain(found.break_id, note=" ", evidence="", operator="ann")
    explained = books.explain(found.break_id, note="a test line", evidence="case 9", operator="ann")
    resolved = books.resolve(found.break_id, resolved_by="ann, bob")

    assert (explained.status, explained.explained_by) == (BreakStatus.EXPLAINED, "ann")
    assert (resolved.status, resolved.version) == (BreakStatus.RESOLVED, 3)
    assert books.resolve(found.break_id, resolved_by="ann, bob") == resolved
    with pytest.raises(InvalidRequestError, match="resolved already"):
        books.explain(found.break_id, note="again", evidence="", operator="cy")


def test_statement_lines_and_matches_cannot_be_changed(books: Reconciliation) -> None:
    settle(books.ledger, "a", 100)
    load(books, statement(line("a", 100, bank="P1")))

    for change in (
        "UPDATE statement_line SET amount_minor = 1",
        "DELETE FROM statement_line",
        "UPDATE rail_match SET entry_id = 99",
        "UPDATE statement_file SET sha256 = 'x'",
    ):
        with pytest.raises(DatabaseError), books.ledger.engine.begin() as connection:
            connection.execute(text(change))


def test_unknown_breaks_are_named(books: Reconciliation) -> None:
    with pytest.raises(InvalidRequestError, match="BREAK: no break 42"):
        books.find_break(42)


def test_a_movement_after_the_cutoff_is_due_on_the_next_day() -> None:
    policy = ReconcilePolicy(cutoff=time(16, 0), grace=timedelta(hours=1))
    day = today()
    before, after = (datetime.combine(day, time(hour), UTC) for hour in (15, 17))
    tomorrow = datetime.combine(day + timedelta(days=1), time(0), UTC)

    assert not policy.overdue(before, before + timedelta(minutes=59))
    assert policy.overdue(before, before + timedelta(hours=1))
    assert not policy.overdue(after, end_of_day(day))
    assert policy.overdue(after, tomorrow + timedelta(hours=1))
