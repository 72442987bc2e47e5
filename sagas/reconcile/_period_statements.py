"""The statements a file holds, with the lines kept with each: the one place the period's report
reads them from. A file holds one statement today, kept on its `statement_file` row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.reconcile._models import StatementFile, StatementLineRow

_CHUNK = 500
"""Files asked for in one query: well under any database's limit on parameters."""


@dataclass(frozen=True, kw_only=True)
class FiledStatement:
    file_id: int
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
    """Its lines kept with this file, by their place in it."""


def filed_statements(session: Session, files: Sequence[StatementFile]) -> list[FiledStatement]:
    """The statements of `files`, in the files' order."""
    kept: dict[int, list[StatementLineRow]] = {file.file_id: [] for file in files}
    ids = list(kept)
    for start in range(0, len(ids), _CHUNK):
        query = (
            select(StatementLineRow)
            .where(StatementLineRow.file_id.in_(ids[start : start + _CHUNK]))
            .order_by(StatementLineRow.file_id, StatementLineRow.position)
        )
        for row in session.scalars(query):
            kept[row.file_id].append(row)
    return [
        FiledStatement(
            file_id=file.file_id,
            statement_id=file.statement_id,
            account=file.account,
            currency=file.currency,
            period_start=file.period_start,
            period_end=file.period_end,
            opening_minor=file.opening_minor,
            opening_date=file.opening_date,
            closing_minor=file.closing_minor,
            closing_date=file.closing_date,
            read=file.line_count,
            kept=tuple(kept[file.file_id]),
        )
        for file in files
    ]
