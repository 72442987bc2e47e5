"""A dry run: what an import or a matching run would keep, match and open. The real code runs,
under the same rules, in one transaction that is rolled back at the end; what it would write is
read from the rows stamped with the dry run's action id before they go. Nothing stays: no file,
line, match or break, and the caller writes no audit record."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from pydantic import JsonValue
from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._models import (
    BreakRow,
    RailMatch,
    RailTransactionMatch,
    StatementFile,
    StatementLineRow,
    StatementTransactionRow,
)
from sagas.reconcile._reconciliation import Reconciliation
from sagas.reconcile.formats import LineKind
from sagas.reconcile.matching import CLOSED_STATUSES, BreakKind

T = TypeVar("T")
MAX_PROPOSED = 200
"""Matches and breaks a dry run lists; beyond, it counts them (the result travels in the
action's Temporal history)."""


@dataclass(frozen=True, kw_only=True)
class ProposedLine:
    """A statement line as a dry run names it: by its file and position, and by its id when it
    was kept before (a line the import would keep has no id yet)."""

    line_id: int | None
    file: str
    position: int
    """1 for its file's first line."""
    bank_reference: str | None
    end_to_end_id: str | None
    direction: str
    amount: Money
    kind: str

    def facts(self) -> dict[str, JsonValue]:
        return {
            "line_id": self.line_id,
            "file": self.file,
            "position": self.position,
            "bank_reference": self.bank_reference,
            "end_to_end_id": self.end_to_end_id,
            "direction": self.direction,
            "amount": str(self.amount),
            "kind": self.kind,
        }


@dataclass(frozen=True, kw_only=True)
class ProposedMatch:
    line: ProposedLine
    transaction: int | None
    """Of a batch line, the position of the transaction matched."""
    entry_id: int
    method: str
    rule: str
    """The matching rule that judged the line."""

    def facts(self) -> dict[str, JsonValue]:
        return {
            "line": self.line.facts(),
            "transaction": self.transaction,
            "entry_id": self.entry_id,
            "method": self.method,
            "rule": self.rule,
        }


@dataclass(frozen=True, kw_only=True)
class ProposedBreak:
    kind: BreakKind
    detail: str
    reference: str | None
    line: ProposedLine | None
    entry_id: int | None
    ledger_amount: Money | None
    statement_amount: Money | None

    def facts(self) -> dict[str, JsonValue]:
        def money(amount: Money | None) -> str | None:
            return None if amount is None else str(amount)

        return {
            "kind": str(self.kind),
            "detail": self.detail,
            "reference": self.reference,
            "line": None if self.line is None else self.line.facts(),
            "entry_id": self.entry_id,
            "ledger": money(self.ledger_amount),
            "statement": money(self.statement_amount),
        }


@dataclass(frozen=True, kw_only=True)
class ClosedBreak:
    break_id: int
    kind: BreakKind


@dataclass(frozen=True, kw_only=True)
class Proposal:
    """What the dry run would have written."""

    matches: tuple[ProposedMatch, ...]
    opened: tuple[ProposedBreak, ...]
    closed: tuple[ClosedBreak, ...]
    """Breaks that exist and would be found matched."""
    open_after: int
    """Breaks that would be open (or explained) after it."""
    rolled_back_breaks: frozenset[int]
    """The ids the opened breaks had before the rollback: no break has them."""

    def facts(self, limit: int = MAX_PROPOSED) -> dict[str, JsonValue]:
        """At most `limit` matches and opened breaks, and how many more."""
        return {
            "matches": [m.facts() for m in self.matches[:limit]],
            "matches_more": max(0, len(self.matches) - limit),
            "breaks": [b.facts() for b in self.opened[:limit]],
            "breaks_more": max(0, len(self.opened) - limit),
            "closes": [{"break_id": c.break_id, "kind": str(c.kind)} for c in self.closed],
            "open_after": self.open_after,
        }


class DryRun(Reconciliation):
    """`books` in one transaction that is never committed: every method runs the real code in
    it, each seeing what the one before would have written."""

    def __init__(self, books: Reconciliation, session: Session) -> None:
        super().__init__(books.ledger, books.definitions, books.policy, books.rules)
        self.session = session

    def _run(self, work: Callable[[Session], T]) -> T:
        return work(self.session)

    def proposal(self, action_id: str) -> Proposal:
        """What the rows stamped with `action_id` would have been."""
        session = self.session
        session.flush()
        lines = _Lines(session, action_id)
        matches = [
            ProposedMatch(
                line=lines.of(row.line_id),
                transaction=None,
                entry_id=row.entry_id,
                method=row.method,
                rule=lines.rule(row.line_id, self),
            )
            for row in session.scalars(select(RailMatch).where(RailMatch.action_id == action_id))
        ]
        query = (
            select(RailTransactionMatch, StatementTransactionRow)
            .join(StatementTransactionRow)
            .where(RailTransactionMatch.action_id == action_id)
        )
        matches += [
            ProposedMatch(
                line=lines.of(transaction.line_id),
                transaction=transaction.position,
                entry_id=found.entry_id,
                method=found.method,
                rule=lines.rule(transaction.line_id, self),
            )
            for found, transaction in session.execute(query)
        ]
        matches.sort(key=lambda m: (m.line.line_id or 0, m.line.position, m.transaction or 0))
        opened = list(session.scalars(_breaks(BreakRow.action_id == action_id)))
        closed = session.scalars(_breaks(BreakRow.closed_by_action == action_id))
        still_open = select(func.count()).where(BreakRow.status.not_in(list(CLOSED_STATUSES)))
        return Proposal(
            matches=tuple(matches),
            opened=tuple(_proposed_break(row, lines) for row in opened),
            closed=tuple(ClosedBreak(break_id=r.break_id, kind=BreakKind(r.kind)) for r in closed),
            open_after=session.scalar(still_open) or 0,
            rolled_back_breaks=frozenset(row.break_id for row in opened),
        )


@contextmanager
def dry_run(books: Reconciliation) -> Iterator[DryRun]:
    """`books` whose every write is rolled back when the block ends, whatever happens in it."""
    with Session(books.ledger.engine) as session:
        session.begin()
        try:
            yield DryRun(books, session)
        finally:
            session.rollback()


def _breaks(condition: ColumnElement[bool]) -> Select[BreakRow]:
    return select(BreakRow).where(condition).order_by(BreakRow.break_id)


class _Lines:
    """Lines by id, as a dry run names them; those stamped with its action id are new."""

    def __init__(self, session: Session, action_id: str) -> None:
        self.session, self.action_id = session, action_id
        self.names: dict[int, str] = {}

    def row(self, line_id: int) -> StatementLineRow:
        found = self.session.get(StatementLineRow, line_id)
        assert found is not None, f"line {line_id} matched or broken, but not kept"
        return found

    def of(self, line_id: int) -> ProposedLine:
        row = self.row(line_id)
        if row.file_id not in self.names:
            file = self.session.get(StatementFile, row.file_id)
            self.names[row.file_id] = "" if file is None else file.name
        return ProposedLine(
            line_id=None if row.action_id == self.action_id else row.line_id,
            file=self.names[row.file_id],
            position=row.position + 1,
            bank_reference=row.bank_reference,
            end_to_end_id=row.end_to_end_id,
            direction=row.direction,
            amount=Money.of(row.amount_minor, row.currency),
            kind=row.kind,
        )

    def rule(self, line_id: int, books: Reconciliation) -> str:
        row = self.row(line_id)
        kind = LineKind(row.kind)
        return books.rules.rule_of(account=row.account, currency=row.currency, kind=kind).name


def _proposed_break(row: BreakRow, lines: _Lines) -> ProposedBreak:
    def money(minor: int | None) -> Money | None:
        return None if minor is None else Money.of(minor, row.currency)

    return ProposedBreak(
        kind=BreakKind(row.kind),
        detail=row.detail,
        reference=row.reference,
        line=None if row.line_id is None else lines.of(row.line_id),
        entry_id=row.entry_id,
        ledger_amount=money(row.ledger_minor),
        statement_amount=money(row.statement_minor),
    )
