"""Breaks about a statement's balances, opened in the import's transaction: a statement whose
lines do not add up (`statement_unbalanced`), and an account's statements that do not chain
(`statement_gap`: the closing balance of one is not the opening balance of the next)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._balance import moved, unbalanced
from sagas.reconcile._breaks import BreakKind
from sagas.reconcile._models import BreakRow, StatementFile
from sagas.reconcile._statement import Statement
from sagas.reconcile._store import new_break


@dataclass(frozen=True, kw_only=True)
class _Finding:
    key: str
    kind: BreakKind
    currency: str
    reference: str
    stated_minor: int
    expected_minor: int
    detail: str


def open_balance_breaks(
    session: Session, statement: Statement, stored: StatementFile, now: datetime, action_id: str
) -> list[BreakRow]:
    """The breaks the statement's balances show that are not open already."""
    findings = [*_unbalanced(statement, stored), *_gaps(session, stored)]
    known = set(session.scalars(select(BreakRow.break_key)))
    opened = []
    for finding in findings:
        if finding.key in known:
            continue
        known.add(finding.key)
        row = new_break(
            session,
            finding.key,
            finding.kind,
            finding.currency,
            finding.detail,
            now=now,
            action_id=action_id,
            reference=finding.reference[:250],
            ledger_minor=finding.expected_minor,
            statement_minor=finding.stated_minor,
        )
        opened.append(row)
    session.flush()
    return opened


def _unbalanced(statement: Statement, stored: StatementFile) -> Iterator[_Finding]:
    opening, closing = statement.opening, statement.closing
    if opening is None or closing is None:
        return
    detail = unbalanced(statement.statement_id, opening, closing, statement.lines)
    if detail is not None:
        expected = opening.amount + moved(statement.lines, statement.currency)
        yield _Finding(
            key=f"{BreakKind.STATEMENT_UNBALANCED}:file:{stored.file_id}",
            kind=BreakKind.STATEMENT_UNBALANCED,
            currency=statement.currency,
            reference=statement.statement_id,
            stated_minor=closing.amount.minor,
            expected_minor=expected.minor,
            detail=f"{detail} (file {stored.file_id}, {stored.name})",
        )


def _gaps(session: Session, stored: StatementFile) -> Iterator[_Finding]:
    """Consecutive statements of the account, by closing date, opening date, statement id (its
    sequence: MT940 :28C:, a camt id) and import; a statement id delivered again (a copy, a
    correction) takes no second place in the chain. A pair whose balances do not chain is a
    gap; one whose next statement opens on a day before the previous one closed, an overlap."""
    query = (
        select(StatementFile)
        .where(
            StatementFile.account == stored.account,
            StatementFile.currency == stored.currency,
            StatementFile.opening_minor.is_not(None),
            StatementFile.closing_minor.is_not(None),
        )
        .order_by(
            StatementFile.closing_date,
            StatementFile.opening_date,
            StatementFile.statement_id,
            StatementFile.file_id,
        )
    )
    chain: list[StatementFile] = []
    for row in session.scalars(query):
        if all(row.statement_id != seen.statement_id for seen in chain):
            chain.append(row)
    for before, after in itertools.pairwise(chain):
        if stored.file_id in (before.file_id, after.file_id):
            yield from _link(stored, before, after)


def _link(stored: StatementFile, before: StatementFile, after: StatementFile) -> Iterator[_Finding]:
    assert before.closing_minor is not None
    assert after.opening_minor is not None
    overlap = (
        after.opening_date is not None
        and before.closing_date is not None
        and after.opening_date < before.closing_date
    )
    if before.closing_minor == after.opening_minor and not overlap:
        return
    closing = Money.of(before.closing_minor, stored.currency)
    opening = Money.of(after.opening_minor, stored.currency)
    what = "an overlap" if overlap else "a gap"
    yield _Finding(
        key=f"{BreakKind.STATEMENT_GAP}:{before.file_id}:{after.file_id}",
        kind=BreakKind.STATEMENT_GAP,
        currency=stored.currency,
        reference=after.statement_id,
        stated_minor=after.opening_minor,
        expected_minor=before.closing_minor,
        detail=(
            f"account {stored.account}: statement {before.statement_id} (file "
            f"{before.file_id}) closes at {closing} on {before.closing_date}, but the next, "
            f"{after.statement_id} (file {after.file_id}), opens at {opening} on "
            f"{after.opening_date}: {what} ({opening - closing}) between them"
        ),
    )
