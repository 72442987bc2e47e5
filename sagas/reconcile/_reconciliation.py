"""Reconciliation of the ledger's rail movements with the rails' statements."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

from pydantic import JsonValue
from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.engine import SagaDefinition
from sagas.foundations import InvalidRequestError, database_now
from sagas.ledger import Ledger
from sagas.reconcile import _store
from sagas.reconcile._balance_breaks import open_balance_breaks
from sagas.reconcile._line_accounting import StatementAccount, check_file, file_facts
from sagas.reconcile._models import BreakRow, RailMatch, RailTransactionMatch
from sagas.reconcile._proof import ProofOfCash, proofs_of_cash
from sagas.reconcile._statement_store import add_statements, stored_statements
from sagas.reconcile._store import ActionCounts
from sagas.reconcile._transaction_store import add_transaction_matches, transaction_matches
from sagas.reconcile.formats import Statement, refuse_statements
from sagas.reconcile.matching import (
    CLOSED_STATUSES,
    BreakKind,
    BreakStatus,
    BreakView,
    MatchingRules,
    RailMovement,
    ReconcilePolicy,
    match,
    rail_movements,
)

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """What one matching run changed."""

    matched: int
    opened: list[BreakView] = field(default_factory=list)
    closed: list[BreakView] = field(default_factory=list)
    """Breaks a later statement or ledger movement matched."""


@dataclass(frozen=True, kw_only=True)
class ImportResult:
    file_id: int
    sha256: str
    new: bool
    """False: this file was imported before, and nothing was added."""
    lines: int
    """The lines of the file: of all its statements."""
    added_lines: int
    """The lines this import kept: new to their account."""
    statements: tuple[StatementAccount, ...]
    """Per statement of the file, in its order, where each line went: new, known or refused."""
    run: RunResult

    def accounted_facts(self) -> dict[str, JsonValue]:
        """As the `statement_imported` record states it: the file's lines read, new, known and
        refused (`accounted`), and each statement's (`statements`, in the file's order, the
        names listed bounded for the whole file)."""
        totals: dict[str, JsonValue] = {
            what: sum(getattr(s, what) for s in self.statements)
            for what in ("read", "new", "known", "refused")
        }
        return {"accounted": totals, "statements": file_facts(self.statements)}


@dataclass(frozen=True, kw_only=True)
class MovementStatus:
    movement: RailMovement
    status: str
    """`matched to line N (method)`, `break N kind (status)` or `awaiting statement`."""


class Reconciliation:
    """Statements imported, matched against the rail movements of `definitions`' saga types."""

    def __init__(
        self,
        ledger: Ledger,
        definitions: Iterable[SagaDefinition[Any, Any]],
        policy: ReconcilePolicy | None = None,
        rules: MatchingRules | None = None,
    ) -> None:
        """`rules` judge each line (none: the policy's tolerances and fees, as one rule); the
        policy's cut-off and grace judge the movements no line books."""
        self.ledger = ledger
        self.definitions = list(definitions)
        self.policy = policy or ReconcilePolicy()
        self.rules = rules or MatchingRules.of(self.policy)

    def import_statement(
        self, statement: Statement, content: bytes, *, name: str, imported_by: str, action_id: str
    ) -> ImportResult:
        """`import_statements` of a file that holds one statement."""
        return self.import_statements(
            (statement,), content, name=name, imported_by=imported_by, action_id=action_id
        )

    def import_statements(
        self,
        statements: Sequence[Statement],
        content: bytes,
        *,
        name: str,
        imported_by: str,
        action_id: str,
    ) -> ImportResult:
        """Keep the file, each of its `statements` (as `read_statements` reads them, in order)
        and their new lines, then match, in one transaction, each row stamped with
        `action_id`; every line of every statement is accounted for (`ImportResult.statements`,
        one each). The statements' balances are checked and chained in the file's order. The
        same file again adds nothing: its lines are known, in itself (a retry of the action
        that kept it finds it new, as it was)."""
        if not statements:
            raise InvalidRequestError("FILE", "holds no statement")
        refuse_statements(len(statements))
        sha256 = hashlib.sha256(content).hexdigest()
        movements = rail_movements(self.ledger, self.definitions)

        def keep(session: Session) -> ImportResult:
            now = database_now(session.connection())
            found = _store.stored_file(session, sha256)
            balance_breaks: list[BreakRow] = []
            if found is None:
                found = _store.add_file(
                    session,
                    statements[0],
                    content=content,
                    sha256=sha256,
                    name=name,
                    imported_by=imported_by,
                    now=now,
                    action_id=action_id,
                )
                kept = add_statements(session, found, statements, action_id)
                pairs = list(zip(statements, kept, strict=True))
                balance_breaks = open_balance_breaks(session, found, pairs, now, action_id)
            else:
                kept = stored_statements(session, found, statements)
            accounted = tuple(
                _store.keep_lines(session, statement, found, row, now=now, action_id=action_id)
                for statement, row in zip(statements, kept, strict=True)
            )
            read = sum(len(statement.lines) for statement in statements)
            check_file(accounted, read)
            run = self._reconcile(session, action_id, movements)
            opened = [_store.break_view(row) for row in balance_breaks]
            return ImportResult(
                file_id=found.file_id,
                sha256=sha256,
                new=found.action_id == action_id,
                lines=read,
                added_lines=sum(statement.new for statement in accounted),
                statements=accounted,
                run=replace(run, opened=opened + run.opened),
            )

        return self._run(keep)

    def run(self, *, action_id: str) -> RunResult:
        """Match every line not matched yet; open a break for each difference found, and close
        those that matched since, each row stamped with `action_id`. Running it again changes
        nothing."""
        movements = rail_movements(self.ledger, self.definitions)
        return self._run(lambda session: self._reconcile(session, action_id, movements))

    def action_counts(self, action_id: str) -> ActionCounts:
        """What the rows stamped with `action_id` add up to, as its audit record states them."""
        return self._run(lambda session: _store.action_counts(session, action_id))

    def _reconcile(
        self, session: Session, action_id: str, movements: list[RailMovement]
    ) -> RunResult:
        now = database_now(session.connection())
        outcome = match(
            _store.booked_lines(session),
            movements,
            _store.matches(session),
            _store.covered_until(session),
            self.policy,
            transaction_matches(session),
            self.rules,
        )
        _store.add_matches(session, outcome.matches, now, action_id)
        add_transaction_matches(session, outcome.transaction_matches, now, action_id)
        opened = _store.open_breaks(session, outcome.findings, now, action_id)
        closed = _store.close_matched(
            session, outcome.matched_lines, outcome.matched_entries, now, action_id
        )
        return RunResult(
            matched=len(outcome.matches) + len(outcome.transaction_matches),
            opened=[_store.break_view(row) for row in opened],
            closed=[_store.break_view(row) for row in closed],
        )

    def proofs_of_cash(self) -> list[ProofOfCash]:
        """The proof of cash of each imported statement that states its balances."""
        movements = rail_movements(self.ledger, self.definitions)
        return self._run(lambda session: proofs_of_cash(session, movements))

    def now(self) -> datetime:
        """The database's time: what a break's age is measured by."""
        return self._run(lambda session: database_now(session.connection()))

    def breaks(
        self, *, status: BreakStatus | None = None, kind: BreakKind | None = None
    ) -> list[BreakView]:
        query = select(BreakRow).order_by(BreakRow.break_id)
        if status is not None:
            query = query.where(BreakRow.status == status.value)
        if kind is not None:
            query = query.where(BreakRow.kind == kind.value)
        return self._run(lambda s: [_store.break_view(row) for row in s.scalars(query)])

    def find_break(self, break_id: int) -> BreakView:
        def find(session: Session) -> BreakView:
            row = session.get(BreakRow, break_id)
            if row is None:
                raise InvalidRequestError("BREAK", f"no break {break_id}")
            return _store.break_view(row)

        return self._run(find)

    def explain(self, break_id: int, *, note: str, evidence: str, operator: str) -> BreakView:
        """An operator's explanation of an open break (or a better one of an explained one)."""
        if not note.strip():
            raise InvalidRequestError("--note", "an explanation needs a note")

        def change(row: BreakRow) -> None:
            row.status = BreakStatus.EXPLAINED.value
            row.note, row.evidence, row.explained_by = note, evidence, operator

        return self._change(break_id, change)

    def resolve(
        self, break_id: int, *, resolved_by: str, adjustment_entry_id: int | None = None
    ) -> BreakView:
        """Close the break, as two operators agreed; idempotent once resolved so."""

        def change(row: BreakRow) -> None:
            row.status = BreakStatus.RESOLVED.value
            row.resolved_by, row.adjustment_entry_id = resolved_by, adjustment_entry_id

        return self._change(break_id, change, again_ok=BreakStatus.RESOLVED)

    def movements(self) -> list[MovementStatus]:
        """Every rail movement and where it stands in reconciliation."""
        movements = rail_movements(self.ledger, self.definitions)

        def read(session: Session) -> list[MovementStatus]:
            matched = {row.entry_id: row for row in session.scalars(select(RailMatch))}
            in_batches = {
                row.entry_id: row for row in session.scalars(select(RailTransactionMatch))
            }
            breaks: dict[int, BreakRow] = {}
            for row in session.scalars(select(BreakRow).order_by(BreakRow.break_id)):
                if row.entry_id is not None and row.status not in CLOSED_STATUSES:
                    breaks.setdefault(row.entry_id, row)
            return [
                _status(
                    m, matched.get(m.entry_id), in_batches.get(m.entry_id), breaks.get(m.entry_id)
                )
                for m in movements
            ]

        return self._run(read)

    def _change(
        self,
        break_id: int,
        change: Callable[[BreakRow], None],
        again_ok: BreakStatus | None = None,
    ) -> BreakView:
        def apply(session: Session) -> BreakView:
            row = session.get(BreakRow, break_id, with_for_update=True)
            if row is None:
                raise InvalidRequestError("BREAK", f"no break {break_id}")
            if row.status == again_ok:
                return _store.break_view(row)
            if BreakStatus(row.status) in CLOSED_STATUSES:
                raise InvalidRequestError("BREAK", f"break {break_id} is {row.status} already")
            change(row)
            row.updated_at = database_now(session.connection())
            row.version += 1
            session.flush()
            return _store.break_view(row)

        return self._run(apply)

    def _run(self, work: Callable[[Session], T]) -> T:
        with Session(self.ledger.engine) as session, session.begin():
            return work(session)


def _status(
    movement: RailMovement,
    matched: RailMatch | None,
    in_batch: RailTransactionMatch | None,
    open_break: BreakRow | None,
) -> MovementStatus:
    if open_break is not None:
        text = f"break {open_break.break_id} {open_break.kind} ({open_break.status})"
    elif in_batch is not None:
        text = f"matched to statement transaction {in_batch.transaction_id} ({in_batch.method})"
    elif matched is not None:
        text = f"matched to statement line {matched.line_id} ({matched.method})"
    else:
        text = "awaiting statement"
    return MovementStatus(movement=movement, status=text)
