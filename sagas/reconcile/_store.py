"""Reading and writing the reconciliation's tables, in the caller's session."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._line_accounting import LineRefusal, StatementAccount
from sagas.reconcile._line_identity import LineIdentity, booking, line_identities
from sagas.reconcile._models import (
    BankStatementRow,
    BreakRow,
    RailMatch,
    RailTransactionMatch,
    StatementFile,
    StatementLineRow,
)
from sagas.reconcile._statement_store import describe
from sagas.reconcile._transaction_store import add_transactions, booked_transactions
from sagas.reconcile.formats import LineDirection, LineKind, Statement, StatementLine
from sagas.reconcile.matching import BookedLine, BreakKind, BreakStatus, BreakView, Finding


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
) -> StatementFile:
    """The file as kept, its header columns `statement`'s (its first statement's); its
    statements are kept by `add_statements`, their lines by `keep_lines`."""
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
        opening_minor=None if statement.opening is None else statement.opening.amount.minor,
        opening_date=None if statement.opening is None else statement.opening.day,
        closing_minor=None if statement.closing is None else statement.closing.amount.minor,
        closing_date=None if statement.closing is None else statement.closing.day,
        content=content,
        imported_at=now,
        imported_by=imported_by[:120],
        action_id=action_id,
    )
    session.add(row)
    session.flush()
    return row


def keep_lines(
    session: Session,
    statement: Statement,
    file: StatementFile,
    kept: BankStatementRow,
    *,
    now: datetime,
    action_id: str,
) -> StatementAccount:
    """Keep the statement's new lines with `file` and its row `kept`; account for every line:
    new, known (in which file: an earlier one, or an earlier statement of this one) or refused
    (a bank reference kept before with other content: a `statement_conflict` break). Raises
    AccountingError, so nothing is kept, when the sums do not close. A statement kept by
    `action_id` itself (a retried attempt) holds its lines as new."""
    account = statement.account[:64]
    identities = line_identities(account, statement.lines)
    stored = _held(session, account, [identity.key for identity in identities])
    tally = StatementAccount(
        statement_id=statement.statement_id,
        account=account,
        copy_indicator=statement.copy_indicator,
        read=len(statement.lines),
        position=kept.position + 1,
        currency=statement.currency,
    )
    ours = kept.action_id == action_id
    added: list[tuple[StatementLineRow, StatementLine]] = []
    for position, (line, identity) in enumerate(zip(statement.lines, identities, strict=True), 1):
        tally.zero_amount += line.amount.minor == 0
        held = stored.get(identity.key)
        if held is None:
            row = _line_row(kept, position, line, identity, action_id)
            session.add(row)
            added.append((row, line))
            tally.new += 1
        elif _held_booking(held) != booking(line):
            conflict = _conflict(session, file, kept, position, line, held, now, action_id)
            tally.refusals.append(conflict)
        elif held.bank_statement_id == kept.bank_statement_id and ours:
            tally.new += 1
        else:
            tally.known += 1
            tally.known_in[held.file_id] += 1
    tally.check()
    if tally.known_in:
        names = select(StatementFile.file_id, StatementFile.name).where(
            StatementFile.file_id.in_(list(tally.known_in))
        )
        tally.file_names.update({found.file_id: found.name for found in session.execute(names)})
    session.flush()
    add_transactions(session, added, action_id)
    return tally


_LOOKUP_CHUNK = 500
"""Identities asked for in one query: well under any database's limit on parameters."""


def _held(session: Session, account: str, keys: list[str]) -> dict[str, StatementLineRow]:
    """The lines of `account` already kept under any of `keys`."""
    held: dict[str, StatementLineRow] = {}
    for start in range(0, len(keys), _LOOKUP_CHUNK):
        query = select(StatementLineRow).where(
            StatementLineRow.account == account,
            StatementLineRow.identity.in_(keys[start : start + _LOOKUP_CHUNK]),
        )
        held.update({row.identity: row for row in session.scalars(query)})
    return held


def _line_row(
    kept: BankStatementRow,
    position: int,
    line: StatementLine,
    identity: LineIdentity,
    action_id: str,
) -> StatementLineRow:
    return StatementLineRow(
        file_id=kept.file_id,
        bank_statement_id=kept.bank_statement_id,
        position=position - 1,
        account=kept.account,
        bank_reference=line.bank_reference,
        identity=identity.key,
        occurrence=identity.occurrence,
        zero_amount=line.amount.minor == 0,
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


def _held_booking(row: StatementLineRow) -> tuple[str, int, str, str]:
    return (row.direction, row.amount_minor, row.currency, row.booking_date.isoformat())


def _conflict(
    session: Session,
    file: StatementFile,
    kept: BankStatementRow,
    position: int,
    line: StatementLine,
    held: StatementLineRow,
    now: datetime,
    action_id: str,
) -> LineRefusal:
    """The line is not kept; the break that says so is opened once per statement of the file
    and position (the first statement's keyed as before files held several)."""
    where = f"{file.file_id}" if kept.position == 0 else f"{file.file_id}.{kept.position + 1}"
    key = f"{BreakKind.STATEMENT_CONFLICT}:{held.line_id}:{where}:{position}"
    row = session.scalars(select(BreakRow).where(BreakRow.break_key == key)).first()
    before = Money.of(held.amount_minor, held.currency)
    reason = (
        f"bank reference {held.bank_reference} is line {held.line_id} (file {held.file_id}): "
        f"a {held.direction} of {before} booked {held.booking_date}; here a "
        f"{line.direction} of {line.amount} booked {line.booking_date}"
    )
    if row is None:
        row = new_break(
            session,
            key,
            BreakKind.STATEMENT_CONFLICT,
            line.amount.currency.code,
            f"line {position} of {describe(kept, file)} not kept: {reason}",
            now=now,
            action_id=action_id,
            line_id=held.line_id,
            reference=held.bank_reference,
            statement_minor=line.amount.minor,
        )
        session.flush()
    return LineRefusal(position=position, reason=f"conflict: {reason}", break_id=row.break_id)


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
            bank_reference=row.bank_reference or "",
            account=row.account,
            transactions=transactions.get(row.line_id, ()),
        )
        for row in session.scalars(
            select(StatementLineRow)
            .where(StatementLineRow.amount_minor > 0)
            .order_by(StatementLineRow.line_id)
        )
    ]


def matches(session: Session) -> dict[int, int]:
    return {row.line_id: row.entry_id for row in session.scalars(select(RailMatch))}


def covered_until(session: Session) -> dict[str, datetime]:
    """Per currency, the latest end of an imported statement's period (of any statement of any
    file)."""
    query = select(BankStatementRow.currency, func.max(BankStatementRow.period_end)).group_by(
        BankStatementRow.currency
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
        opened.append(
            new_break(
                session,
                finding.key,
                finding.kind,
                finding.currency,
                finding.detail,
                now=now,
                action_id=action_id,
                line_id=finding.line_id,
                entry_id=finding.entry_id,
                reference=finding.reference,
                ledger_minor=finding.ledger_minor,
                statement_minor=finding.statement_minor,
            )
        )
    session.flush()
    return opened


def new_break(
    session: Session,
    key: str,
    kind: BreakKind,
    currency: str,
    detail: str,
    *,
    now: datetime,
    action_id: str,
    line_id: int | None = None,
    entry_id: int | None = None,
    reference: str | None = None,
    ledger_minor: int | None = None,
    statement_minor: int | None = None,
) -> BreakRow:
    """An open break, added to the session, stamped with the action that opened it."""
    row = BreakRow(
        break_key=key,
        kind=kind.value,
        status=BreakStatus.OPEN.value,
        line_id=line_id,
        entry_id=entry_id,
        reference=reference,
        currency=currency,
        ledger_minor=ledger_minor,
        statement_minor=statement_minor,
        detail=detail,
        opened_at=now,
        updated_at=now,
        note="",
        evidence="",
        version=1,
        action_id=action_id,
    )
    session.add(row)
    return row


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
