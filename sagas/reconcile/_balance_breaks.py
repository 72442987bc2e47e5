"""Breaks about statements' balances, opened in the import's transaction: a statement whose
lines do not add up (`statement_unbalanced`), and an account's statements that do not chain
(`statement_gap`: the closing balance of one is not the opening balance of the next). The
statements of one file chain in the file's order, as consecutive files would."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._models import BankStatementRow, BreakRow, StatementFile
from sagas.reconcile._statement_store import describe
from sagas.reconcile._store import new_break
from sagas.reconcile.formats import Statement, moved, unbalanced
from sagas.reconcile.matching import BreakKind


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
    session: Session,
    file: StatementFile,
    kept: Sequence[tuple[Statement, BankStatementRow]],
    now: datetime,
    action_id: str,
) -> list[BreakRow]:
    """The breaks the balances of the file's statements (`kept`, each with its row, all rows
    added) show that are not open already."""
    findings = [f for statement, row in kept for f in _unbalanced(statement, row, file)]
    rows = [row for _, row in kept]
    for account, currency in dict.fromkeys((row.account, row.currency) for row in rows):
        findings += _gaps(session, account, currency, {row.bank_statement_id for row in rows})
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


def _unbalanced(
    statement: Statement, row: BankStatementRow, file: StatementFile
) -> Iterator[_Finding]:
    opening, closing = statement.opening, statement.closing
    if opening is None or closing is None:
        return
    detail = unbalanced(statement.statement_id, opening, closing, statement.lines)
    if detail is not None:
        expected = opening.amount + moved(statement.lines, statement.currency)
        yield _Finding(
            key=f"{BreakKind.STATEMENT_UNBALANCED}:statement:{row.bank_statement_id}",
            kind=BreakKind.STATEMENT_UNBALANCED,
            currency=statement.currency,
            reference=statement.statement_id,
            stated_minor=closing.amount.minor,
            expected_minor=expected.minor,
            detail=f"{detail} ({describe(row, file)})",
        )


def _gaps(session: Session, account: str, currency: str, new: set[int]) -> Iterator[_Finding]:
    """Consecutive statements of the account and currency, by closing date, opening date,
    statement id (its sequence: MT940 :28C:, a camt id), then import and place in the file; a
    statement delivered again (the same id and dates: a copy, a correction) takes no second
    place in the chain. A pair that does not chain, one of them among `new`, is a gap; one
    whose next statement opens on a day before the previous one closed, an overlap."""
    query = (
        select(BankStatementRow, StatementFile)
        .join(StatementFile, StatementFile.file_id == BankStatementRow.file_id)
        .where(
            BankStatementRow.account == account,
            BankStatementRow.currency == currency,
            BankStatementRow.opening_minor.is_not(None),
            BankStatementRow.closing_minor.is_not(None),
        )
        .order_by(
            BankStatementRow.closing_date,
            BankStatementRow.opening_date,
            BankStatementRow.statement_id,
            BankStatementRow.file_id,
            BankStatementRow.position,
        )
    )
    chain: list[tuple[BankStatementRow, StatementFile]] = []
    seen: set[tuple[str, object, object]] = set()
    for row, file in session.execute(query):
        delivered = (row.statement_id, row.opening_date, row.closing_date)
        if delivered not in seen:
            seen.add(delivered)
            chain.append((row, file))
    for before, after in itertools.pairwise(chain):
        if new & {before[0].bank_statement_id, after[0].bank_statement_id}:
            yield from _link(before, after)


def _link(
    before: tuple[BankStatementRow, StatementFile], after: tuple[BankStatementRow, StatementFile]
) -> Iterator[_Finding]:
    (first, first_file), (then, then_file) = before, after
    assert first.closing_minor is not None
    assert then.opening_minor is not None
    overlap = (
        then.opening_date is not None
        and first.closing_date is not None
        and then.opening_date < first.closing_date
    )
    if first.closing_minor == then.opening_minor and not overlap:
        return
    closing = Money.of(first.closing_minor, first.currency)
    opening = Money.of(then.opening_minor, then.currency)
    what = "an overlap" if overlap else "a gap"
    yield _Finding(
        key=f"{BreakKind.STATEMENT_GAP}:{first.bank_statement_id}:{then.bank_statement_id}",
        kind=BreakKind.STATEMENT_GAP,
        currency=then.currency,
        reference=then.statement_id,
        stated_minor=then.opening_minor,
        expected_minor=first.closing_minor,
        detail=(
            f"account {then.account}: statement {first.statement_id} "
            f"({describe(first, first_file)}) closes at {closing} on {first.closing_date}, but "
            f"the next, {then.statement_id} ({describe(then, then_file)}), opens at {opening} "
            f"on {then.opening_date}: {what} ({opening - closing}) between them"
        ),
    )
