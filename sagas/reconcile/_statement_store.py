"""The statements of a stored file, one row each, in the file's order."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError
from sagas.reconcile._models import BankStatementRow, StatementFile
from sagas.reconcile.formats import Statement


def add_statements(
    session: Session, file: StatementFile, statements: Sequence[Statement], action_id: str
) -> list[BankStatementRow]:
    """A row for each statement of the newly kept `file`, flushed (their ids are known)."""
    rows = [_row(file, position, s, action_id) for position, s in enumerate(statements)]
    session.add_all(rows)
    session.flush()
    return rows


def stored_statements(
    session: Session, file: StatementFile, statements: Sequence[Statement]
) -> list[BankStatementRow]:
    """The rows of a file kept before, one for each of `statements` as the file reads now;
    refused, naming FILE, when it reads as another number of statements than it was kept as
    (a reader that changed since): its lines could not be told apart."""
    query = (
        select(BankStatementRow)
        .where(BankStatementRow.file_id == file.file_id)
        .order_by(BankStatementRow.position)
    )
    rows = list(session.scalars(query))
    if len(rows) != len(statements):
        raise InvalidRequestError(
            "FILE",
            f"was kept as file {file.file_id} ({file.name}) of {len(rows)} statement(s), but "
            f"reads now as {len(statements)}: nothing added",
        )
    return rows


def _row(
    file: StatementFile, position: int, statement: Statement, action_id: str
) -> BankStatementRow:
    opening, closing = statement.opening, statement.closing
    return BankStatementRow(
        file_id=file.file_id,
        position=position,
        statement_id=statement.statement_id[:64],
        account=statement.account[:64],
        currency=statement.currency,
        period_start=statement.period_start,
        period_end=statement.period_end,
        copy_indicator=None if statement.copy_indicator is None else statement.copy_indicator[:4],
        opening_minor=None if opening is None else opening.amount.minor,
        opening_date=None if opening is None else opening.day,
        closing_minor=None if closing is None else closing.amount.minor,
        closing_date=None if closing is None else closing.day,
        line_count=len(statement.lines),
        action_id=action_id,
    )


def describe(row: BankStatementRow, file: StatementFile) -> str:
    """`file 3 (d.xml)`, or for the second statement of a file on, `statement 2 of file 3
    (d.xml)`: how messages name where a statement came from."""
    where = f"file {file.file_id} ({file.name})"
    return where if row.position == 0 else f"statement {row.position + 1} of {where}"
