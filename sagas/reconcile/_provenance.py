"""What the reconciliation's rows say about who wrote them: per operator action, how many files,
lines, matches and breaks carry its id; and the rows that carry none. Read in aggregate, so the
verifier's memory does not grow with the statements."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from sagas.reconcile._models import (
    BankStatementRow,
    BreakRow,
    RailMatch,
    RailTransactionMatch,
    StatementFile,
    StatementLineRow,
    StatementTransactionRow,
)
from sagas.reconcile.matching import BreakStatus


@dataclass
class RowsOfAction:
    """The rows one action id stamps."""

    action_id: str
    files: dict[int, str] = field(default_factory=dict)
    """file id: SHA-256."""
    statements: int = 0
    """The statements of its files: as many as its record lists."""
    lines: int = 0
    matched: int = 0
    opened: int = 0
    closed: int = 0

    def counts(self) -> dict[str, int]:
        return {
            "added": self.lines,
            "matched": self.matched,
            "opened": self.opened,
            "closed": self.closed,
        }


@dataclass(frozen=True)
class ActionRows:
    by_action: dict[str, RowsOfAction]
    unstamped: list[str]
    """Each kind of row that names no action: its first id and how many."""
    explained: list[int]
    """Breaks an operator explained (whatever their status now)."""
    resolved: list[int]


def reconciliation_rows(engine: Engine) -> ActionRows:
    with Session(engine) as session:
        actions: dict[str, RowsOfAction] = {}

        def of(action_id: str) -> RowsOfAction:
            return actions.setdefault(action_id, RowsOfAction(action_id))

        files = select(StatementFile.file_id, StatementFile.sha256, StatementFile.action_id)
        for file_id, sha256, action_id in session.execute(files):
            if action_id is not None:
                of(action_id).files[file_id] = sha256
        for action_id, count in _grouped(session, BankStatementRow.action_id):
            of(action_id).statements = count
        for action_id, count in _grouped(session, StatementLineRow.action_id):
            of(action_id).lines = count
        for action_id, count in _grouped(session, RailMatch.action_id):
            of(action_id).matched = count
        for action_id, count in _grouped(session, RailTransactionMatch.action_id):
            of(action_id).matched += count
        for action_id, count in _grouped(session, BreakRow.action_id):
            of(action_id).opened = count
        for action_id, count in _grouped(session, BreakRow.closed_by_action):
            of(action_id).closed = count
        return ActionRows(
            by_action=actions,
            unstamped=list(_unstamped(session)),
            explained=list(session.scalars(select(BreakRow.break_id).where(_explained()))),
            resolved=list(
                session.scalars(
                    select(BreakRow.break_id).where(BreakRow.status == BreakStatus.RESOLVED.value)
                )
            ),
        )


def _grouped(session: Session, column: Any) -> Iterable[tuple[str, int]]:
    query = select(column, func.count()).where(column.is_not(None)).group_by(column)
    return [(action_id, count) for action_id, count in session.execute(query)]


def _explained() -> Any:
    return BreakRow.explained_by.is_not(None) | (BreakRow.status == BreakStatus.EXPLAINED.value)


def _unstamped(session: Session) -> Iterable[str]:
    """The rows written by no operator action the worker ran."""
    unmatched_close = (
        BreakRow.status == BreakStatus.MATCHED.value
    ) & BreakRow.closed_by_action.is_(None)
    for what, key, where in (
        ("statement file", StatementFile.file_id, StatementFile.action_id.is_(None)),
        (
            "statement of a file",
            BankStatementRow.bank_statement_id,
            BankStatementRow.action_id.is_(None),
        ),
        ("statement line", StatementLineRow.line_id, StatementLineRow.action_id.is_(None)),
        ("match of statement line", RailMatch.line_id, RailMatch.action_id.is_(None)),
        (
            "statement transaction",
            StatementTransactionRow.transaction_id,
            StatementTransactionRow.action_id.is_(None),
        ),
        (
            "match of statement transaction",
            RailTransactionMatch.transaction_id,
            RailTransactionMatch.action_id.is_(None),
        ),
        ("break", BreakRow.break_id, BreakRow.action_id.is_(None)),
        ("matched break", BreakRow.break_id, unmatched_close),
    ):
        first, count = session.execute(select(func.min(key), func.count()).where(where)).one()
        if count:
            more = f" (and {count - 1} more)" if count > 1 else ""
            yield f"{what} {first}{more}"
