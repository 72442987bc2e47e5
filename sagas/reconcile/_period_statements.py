"""The statements a file holds, with the lines kept with each: the one place the period's report
reads them from. Each statement is a `bank_statement` row, its lines those kept with it in their
order (a file imported before a file could hold several has one, of the file's id)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.reconcile._models import BankStatementRow, StatementFile, StatementLineRow

_CHUNK = 500
"""Files (statements) asked for in one query: well under any database's limit on parameters."""


@dataclass(frozen=True, kw_only=True)
class FiledStatement:
    file_id: int
    bank_statement_id: int
    position: int
    """Its place in its file: 1 for the first."""
    statement_id: str
    account: str
    currency: str
    period_start: datetime | None
    period_end: datetime | None
    opening_minor: int | None
    opening_date: date | None
    closing_minor: int | None
    closing_date: date | None
    read: int
    """The lines the statement holds in its file."""
    kept: tuple[StatementLineRow, ...]
    """Its lines kept with it, by their place in it."""


def filed_statements(session: Session, files: Sequence[StatementFile]) -> list[FiledStatement]:
    """The statements of `files`, in the files' order and each file's."""
    rows: dict[int, list[BankStatementRow]] = {file.file_id: [] for file in files}
    ids = list(rows)
    for start in range(0, len(ids), _CHUNK):
        query = (
            select(BankStatementRow)
            .where(BankStatementRow.file_id.in_(ids[start : start + _CHUNK]))
            .order_by(BankStatementRow.file_id, BankStatementRow.position)
        )
        for row in session.scalars(query):
            rows[row.file_id].append(row)
    statements = [row for file in files for row in rows[file.file_id]]
    kept = _kept(session, [row.bank_statement_id for row in statements])
    return [
        FiledStatement(
            file_id=row.file_id,
            bank_statement_id=row.bank_statement_id,
            position=row.position + 1,
            statement_id=row.statement_id,
            account=row.account,
            currency=row.currency,
            period_start=row.period_start,
            period_end=row.period_end,
            opening_minor=row.opening_minor,
            opening_date=row.opening_date,
            closing_minor=row.closing_minor,
            closing_date=row.closing_date,
            read=row.line_count,
            kept=tuple(kept.get(row.bank_statement_id, ())),
        )
        for row in statements
    ]


def _kept(session: Session, ids: Sequence[int]) -> dict[int, list[StatementLineRow]]:
    """The lines kept with each statement of `ids`, in their order in it."""
    kept: dict[int, list[StatementLineRow]] = {}
    for start in range(0, len(ids), _CHUNK):
        query = (
            select(StatementLineRow)
            .where(StatementLineRow.bank_statement_id.in_(ids[start : start + _CHUNK]))
            .order_by(StatementLineRow.bank_statement_id, StatementLineRow.position)
        )
        for row in session.scalars(query):
            kept.setdefault(row.bank_statement_id, []).append(row)
    return kept
