"""Reading and writing the reconciliation's tables, in the caller's session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._booked import BookedLine, Finding
from sagas.reconcile._breaks import BreakKind, BreakStatus, BreakView
from sagas.reconcile._models import (
    BreakRow,
    RailMatch,
    RailTransactionMatch,
    StatementFile,
    StatementLineRow,
)
from sagas.reconcile._statement import LineDirection, LineKind, Statement, StatementLine
from sagas.reconcile._transaction_store import add_transactions, booked_transactions


@dataclass(frozen=True, kw_only=True)
class ActionCounts:
    """The rows one operator action wrote: what its audit record must count."""

    files: int = 0
    lines: int = 0
    matched: int = 0
    opened: int = 0
    closed: int = 0


def action_counts(session: Session, action_id: str) -> ActionCounts:
    def count(column: Any) -> int:
        return session.scalar(select(func.count()).where(column == action_id)) or 0

    return ActionCounts(
        files=count(StatementFile.action_id),
        lines=count(StatementLineRow.action_id),
        matched=count(RailMatch.action_id) + count(RailTransactionMatch.action_id),
        opened=count(BreakRow.action_id),
        closed=count(BreakRow.closed_by_action),
    )


def stored_file(session: Session, sha256: str) -> StatementFile | None:
    return session.scalars(select(StatementFile).where(StatementFile.sha256 == sha256)).first()


def add_file(
    session: Session,
    statement: Statement,
    *,
    content: bytes,
    sha256: str,
    name: str,
    imported_by: str,
    now: datetime,
    action_id: str,
) -> tuple[StatementFile, int]:
    """The file and how many of its lines are new (a line delivered before is kept once)."""
    row = StatementFile(
        sha256=sha256,
        format=statement.format.value,
        name=name[:255],
        statement_id=statement.statement_id[:64],
        account=statement.account[:64],
        currency=statement.currency,
        period_start=statement.period_start,
        period_end=statement.period_end,
        line_count=len(statement.lines),
        content=content,
        imported_at=now,
        imported_by=imported_by[:120],
        action_id=action_id,
    )
    session.add(row)
    session.flush()
    known = set(
        session.scalars(
            select(StatementLineRow.bank_reference).where(
                StatementLineRow.account == statement.account[:64]
            )
        )
    )
    added: list[tuple[StatementLineRow, StatementLine]] = []
    for position, line in enumerate(statement.lines):
        if line.bank_reference in known:
            continue
        known.add(line.bank_reference)
        line_row = StatementLineRow(
            file_id=row.file_id,
            position=position,
            account=statement.account[:64],
            bank_reference=line.bank_reference,
            end_to_end_id=line.end_to_end_id,
            direction=line.direction.value,
            kind=line.kind.value,
            amount_minor=line.amount.minor,
            currency=line.amount.currency.code,
            fee_minor=None if line.fee is None else line.fee.minor,
            booking_date=line.booking_date,
            value_date=line.value_date,
            description=line.description,
            action_id=action_id,
        )
        session.add(line_row)
        added.append((line_row, line))
    session.flush()
    add_transactions(session, added, action_id)
    return row, len(added)


def booked_lines(session: Session) -> list[BookedLine]:
    transactions = booked_transactions(session)
    return [
        BookedLine(
            line_id=row.line_id,
            end_to_end_id=row.end_to_end_id,
            direction=LineDirection(row.direction),
            amount_minor=row.amount_minor,
            currency=row.currency,
            fee_minor=row.fee_minor,
            value_date=row.value_date,
            kind=LineKind(row.kind),
            bank_reference=row.bank_reference,
            transactions=transactions.get(row.line_id, ()),
        )
        for row in session.scalars(select(StatementLineRow).order_by(StatementLineRow.line_id))
    ]


def matches(session: Session) -> dict[int, int]:
    return {row.line_id: row.entry_id for row in session.scalars(select(RailMatch))}


def covered_until(session: Session) -> dict[str, datetime]:
    """Per currency, the latest end of an imported statement's period."""
    query = select(StatementFile.currency, func.max(StatementFile.period_end)).group_by(
        StatementFile.currency
    )
    return {currency: end for currency, end in session.execute(query) if end is not None}


def add_matches(
    session: Session, found: list[tuple[int, int, str]], now: datetime, action_id: str
) -> None:
    for line_id, entry_id, method in found:
        session.add(
            RailMatch(
                line_id=line_id,
                entry_id=entry_id,
                method=method,
                matched_at=now,
                action_id=action_id,
            )
        )


def open_breaks(
    session: Session, findings: list[Finding], now: datetime, action_id: str
) -> list[BreakRow]:
    """Breaks for the findings that have none yet."""
    known = set(session.scalars(select(BreakRow.break_key)))
    opened = []
    for finding in findings:
        if finding.key in known:
            continue
        known.add(finding.key)
        row = BreakRow(
            break_key=finding.key,
            kind=finding.kind.value,
            status=BreakStatus.OPEN.value,
            line_id=finding.line_id,
            entry_id=finding.entry_id,
            reference=finding.reference,
            currency=finding.currency,
            ledger_minor=finding.ledger_minor,
            statement_minor=finding.statement_minor,
            detail=finding.detail,
            opened_at=now,
            updated_at=now,
            note="",
            evidence="",
            version=1,
            action_id=action_id,
        )
        session.add(row)
        opened.append(row)
    session.flush()
    return opened


MATCHABLE = {
    BreakKind.MISSING_IN_LEDGER: "line_id",
    BreakKind.FEE: "line_id",
    BreakKind.INTEREST: "line_id",
    BreakKind.MISSING_IN_STATEMENT: "entry_id",
}


def close_matched(
    session: Session, lines: set[int], entries: set[int], now: datetime, action_id: str
) -> list[BreakRow]:
    """Missing-line and missing-movement breaks whose line or movement has matched since."""
    closed = []
    query = select(BreakRow).where(
        BreakRow.kind.in_([kind.value for kind in MATCHABLE]),
        BreakRow.status.in_([BreakStatus.OPEN.value, BreakStatus.EXPLAINED.value]),
    )
    for row in session.scalars(query):
        matched = row.line_id in lines if row.line_id is not None else row.entry_id in entries
        if matched:
            row.status = BreakStatus.MATCHED.value
            row.closed_by_action = action_id
            row.updated_at = now
            row.version += 1
            closed.append(row)
    session.flush()
    return closed


def break_view(row: BreakRow) -> BreakView:
    def money(minor: int | None) -> Money | None:
        return None if minor is None else Money.of(minor, row.currency)

    return BreakView(
        break_id=row.break_id,
        kind=BreakKind(row.kind),
        status=BreakStatus(row.status),
        reference=row.reference,
        line_id=row.line_id,
        entry_id=row.entry_id,
        ledger_amount=money(row.ledger_minor),
        statement_amount=money(row.statement_minor),
        detail=row.detail,
        opened_at=row.opened_at,
        updated_at=row.updated_at,
        note=row.note,
        evidence=row.evidence,
        explained_by=row.explained_by,
        resolved_by=row.resolved_by,
        adjustment_entry_id=row.adjustment_entry_id,
        version=row.version,
    )
