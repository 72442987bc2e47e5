"""Reading and writing the transactions of stored lines and their matches, in the caller's
session."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.reconcile._models import (
    RailTransactionMatch,
    StatementLineRow,
    StatementTransactionRow,
)
from sagas.reconcile.formats import StatementLine
from sagas.reconcile.matching import BookedTransaction


def add_transactions(
    session: Session, added: Iterable[tuple[StatementLineRow, StatementLine]], action_id: str
) -> None:
    """Each new line's transactions, under its (flushed) line id."""
    for row, line in added:
        for position, transaction in enumerate(line.transactions, 1):
            session.add(
                StatementTransactionRow(
                    line_id=row.line_id,
                    position=position,
                    end_to_end_id=transaction.end_to_end_id,
                    amount_minor=None if transaction.amount is None else transaction.amount.minor,
                    return_reason=transaction.return_reason,
                    action_id=action_id,
                )
            )
    session.flush()


def booked_transactions(session: Session) -> dict[int, tuple[BookedTransaction, ...]]:
    """Line id: its transactions, in the order the rail stated them."""
    found: dict[int, list[BookedTransaction]] = {}
    query = select(StatementTransactionRow).order_by(
        StatementTransactionRow.line_id, StatementTransactionRow.position
    )
    for row in session.scalars(query):
        found.setdefault(row.line_id, []).append(
            BookedTransaction(
                transaction_id=row.transaction_id,
                position=row.position,
                end_to_end_id=row.end_to_end_id,
                amount_minor=row.amount_minor,
                return_reason=row.return_reason,
            )
        )
    return {line_id: tuple(transactions) for line_id, transactions in found.items()}


def transaction_matches(session: Session) -> dict[int, int]:
    """Transaction id: the entry it books."""
    rows = session.scalars(select(RailTransactionMatch))
    return {row.transaction_id: row.entry_id for row in rows}


def add_transaction_matches(
    session: Session, found: list[tuple[int, int, str]], now: datetime, action_id: str
) -> None:
    for transaction_id, entry_id, method in found:
        session.add(
            RailTransactionMatch(
                transaction_id=transaction_id,
                entry_id=entry_id,
                method=method,
                matched_at=now,
                action_id=action_id,
            )
        )
