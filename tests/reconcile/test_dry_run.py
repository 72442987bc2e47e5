"""A dry run runs the real import (or matching run) under the same rules in a transaction that
is rolled back: it writes nothing, in no reconciliation table, and what it proposes is what the
real import then does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from activities.statements import StatementActivities
from sagas.ledger import Ledger
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import (
    CLOSED_STATUSES,
    BreakKind,
    Proposal,
    ReconcilePolicy,
    Reconciliation,
    Statement,
    StatementCall,
    StatementRules,
    StatementUpload,
    dry_run,
    metadata,
    parse_rules,
)
from tests.ledger._money import eur
from tests.reconcile.test_line_accounting import camt, referenced
from tests.reconcile.test_matching import line, new_action, sent, settle
from tests.reconcile.test_rules import on

POLICY = ReconcilePolicy(grace=timedelta(0))
RULES = '[[rules]]\nname = "bank-a"\npriority = 1\naccounts = ["BANK-A"]\namount_tolerance = "1%"'


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    return Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], POLICY, parse_rules(RULES, POLICY))


def everything(ledger: Ledger) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every reconciliation table, in a stable order."""
    with ledger.engine.connect() as connection:
        return {
            name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for name, table in metadata.tables.items()
        }


def the_day(books: Reconciliation) -> Statement:
    """Payouts a, b and c settled; a statement that already booked a; then this one: a again
    (known), b by reference (100.00 EUR booked as 99.50: within the rule's 1%), 7.00 without a
    reference (c, by amount and date), and a payout the ledger never made."""
    for key, minor in (("a", 1_000), ("b", 10_000), ("c", 700)):
        settle(books.ledger, key, minor)
    first = on("BANK-A", line("a", 1_000, bank="A1"), statement_id="S1")
    books.import_statement(
        first, b"first", name="first.xml", imported_by="t", action_id=new_action()
    )
    return on(
        "BANK-A",
        line("a", 1_000, bank="A1"),
        line("b", 9_950, bank="A2"),
        line(None, 700, bank="A3"),
        line("x", 4_200, bank="A4"),
        statement_id="S2",
    )


def real(books: Reconciliation, action_id: str) -> dict[str, Any]:
    """What the action's committed rows say, read here without the dry run's code."""
    lines = metadata.tables["statement_line"]
    files = metadata.tables["statement_file"]
    matches = metadata.tables["rail_match"]
    breaks = metadata.tables["reconciliation_break"]
    with books.ledger.engine.connect() as connection:
        matched = connection.execute(
            select(lines.c.position, files.c.name, matches.c.entry_id, matches.c.method)
            .join(lines, lines.c.line_id == matches.c.line_id)
            .join(files, files.c.file_id == lines.c.file_id)
            .where(matches.c.action_id == action_id)
        ).all()
        opened = connection.execute(
            select(breaks).where(breaks.c.action_id == action_id).order_by(breaks.c.break_id)
        ).all()
        closed = connection.execute(
            select(breaks.c.break_id).where(breaks.c.closed_by_action == action_id)
        ).all()
        still = connection.execute(
            select(breaks.c.break_id).where(breaks.c.status.not_in(list(CLOSED_STATUSES)))
        ).all()
    return {
        "matches": sorted((p + 1, f, e, m) for p, f, e, m in matched),
        "opened": [
            (r.kind, r.detail, r.reference, r.ledger_minor, r.statement_minor) for r in opened
        ],
        "closed": sorted(r.break_id for r in closed),
        "open_after": len(still),
    }


def proposed(proposal: Proposal) -> dict[str, Any]:
    def minor(amount: Any) -> int | None:
        return None if amount is None else amount.minor

    return {
        "matches": sorted(
            (m.line.position, m.line.file, m.entry_id, m.method) for m in proposal.matches
        ),
        "opened": [
            (str(b.kind), b.detail, b.reference, minor(b.ledger_amount), minor(b.statement_amount))
            for b in proposal.opened
        ],
        "closed": sorted(c.break_id for c in proposal.closed),
        "open_after": proposal.open_after,
    }


def test_a_dry_run_import_writes_nothing_and_proposes_what_the_import_does(
    books: Reconciliation,
) -> None:
    day = the_day(books)
    before = everything(books.ledger)
    action_id = new_action()

    with dry_run(books) as dry:
        would = dry.import_statement(
            day, b"second", name="second.xml", imported_by="t", action_id=action_id
        )
        proposal = dry.proposal(action_id)

    assert everything(books.ledger) == before
    done = books.import_statement(
        day, b"second", name="second.xml", imported_by="t", action_id=action_id
    )
    assert proposed(proposal) == real(books, action_id)
    (accounted,) = would.statements
    assert (accounted.read, accounted.new, accounted.known) == (4, 3, 1)
    assert would.statements == done.statements
    # What the proposal says, checked against the scenario, not only against the import.
    assert [(m.line.bank_reference, m.method, m.rule) for m in proposal.matches] == [
        ("A2", "reference", "bank-a"),
        ("A3", "amount_date", "bank-a"),
    ]
    assert all(m.line.line_id is None for m in proposal.matches)  # new lines: no id yet
    assert [(b.kind, b.reference) for b in proposal.opened] == [
        (BreakKind.MISSING_IN_LEDGER, sent("x"))
    ]
    assert proposal.opened[0].detail.endswith("(rule bank-a)")
    assert sorted(c.kind for c in proposal.closed) == [BreakKind.MISSING_IN_STATEMENT] * 2
    assert proposal.open_after == 1


def test_a_dry_run_of_matching_writes_nothing_and_proposes_what_the_run_does(
    books: Reconciliation,
) -> None:
    books.import_statement(
        on("BANK-B", line("d", 3_000, bank="B1")),
        b"early",
        name="early.xml",
        imported_by="t",
        action_id=new_action(),
    )
    settle(books.ledger, "d", 3_000)
    before = everything(books.ledger)
    action_id = new_action()

    with dry_run(books) as dry:
        dry.run(action_id=action_id)
        proposal = dry.proposal(action_id)

    assert everything(books.ledger) == before
    books.run(action_id=action_id)
    assert proposed(proposal) == real(books, action_id)
    ((kept, match),) = [(m.line.line_id, m) for m in proposal.matches]
    assert (kept, match.method, match.rule) == (1, "reference", "default")
    assert [c.kind for c in proposal.closed] == [BreakKind.MISSING_IN_LEDGER]
    assert proposal.open_after == 0


def test_a_dry_run_that_fails_half_way_leaves_nothing(books: Reconciliation) -> None:
    day = the_day(books)
    before = everything(books.ledger)

    def fail_half_way() -> None:
        with dry_run(books) as dry:
            dry.import_statement(day, b"2", name="s.xml", imported_by="t", action_id=new_action())
            raise RuntimeError("the worker stops here")

    with pytest.raises(RuntimeError):
        fail_half_way()

    assert everything(books.ledger) == before


def test_the_worker_s_dry_run_names_no_break_or_file_that_was_rolled_back(
    books: Reconciliation,
) -> None:
    """A conflict would open a `statement_conflict` break; the dry run lists it, but the refusal
    names no break id (the one it had is gone), nor the file its id."""
    activities = StatementActivities(books.ledger, books.definitions, StatementRules(policy=POLICY))
    kept = camt([referenced("BNK-1", "100.00")])
    changed = camt([referenced("BNK-1", "120.00"), referenced("BNK-2", "5.00")])
    activities.import_statement(call(kept, "d.xml"))
    before = everything(books.ledger)

    would: dict[str, Any] = activities.dry_run(call(changed, "d2.xml"))

    assert everything(books.ledger) == before
    (statement,) = would["statements"]
    assert (statement["new"], statement["refused"], would["file_id"]) == (1, 1, None)
    assert [r["break_id"] for r in statement["refusals"]] == [None]
    kinds = sorted(b["kind"] for b in would["breaks"])
    assert kinds == ["missing_in_ledger", "statement_conflict"]
    done: dict[str, Any] = activities.import_statement(call(changed, "d2.xml"))
    (real,) = done["statements"]
    assert real["refusals"][0]["break_id"] is not None
    assert done["opened"] == len(would["breaks"])


def call(content: bytes, name: str) -> StatementCall:
    return StatementCall(
        action_id=new_action(), operator="t", upload=StatementUpload.of(content, name, None)
    )
