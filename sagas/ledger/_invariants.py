"""Checks that the ledger is consistent: each finding is one human-readable line."""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.ledger._chain import chain_findings
from sagas.ledger._models import Account, Hold, JournalEntry, Posting
from sagas.ledger._views import HoldStatus

_NET_EFFECT = (
    select(Posting.account_id, Posting.currency, func.sum(Posting.amount))
    .join(JournalEntry, JournalEntry.entry_id == Posting.entry_id)
    .where(JournalEntry.saga_id == bindparam("saga_id"))
    .group_by(Posting.account_id, Posting.currency)
    .order_by(Posting.account_id)
)
"""Built once (its SQL cache key with it): every settlement runs it."""


def check_invariants(session: Session) -> list[str]:
    """The journal chain first, in journal order, so the first finding is the first bad entry."""
    accounts = list(session.scalars(select(Account).order_by(Account.account_id)))
    posted = _posted(session)
    return [
        *chain_findings(session),
        *_currency_totals(accounts, posted),
        *_cached_balances(accounts, posted),
        *_cached_holds(session, accounts),
        *_limits(accounts),
        *_unbalanced_entries(session),
        *_foreign_postings(session),
    ]


def net_effect(session: Session, saga_id: str) -> dict[str, Money]:
    rows = session.execute(_NET_EFFECT, {"saga_id": saga_id})
    return {account: Money.of(int(total), code) for account, code, total in rows if total}


def _posted(session: Session) -> dict[str, int]:
    """Each account's postings summed: a customer's cached balance, a system account's own."""
    rows = session.execute(
        select(Posting.account_id, func.sum(Posting.amount)).group_by(Posting.account_id)
    )
    return {account_id: int(total or 0) for account_id, total in rows}


def _currency_totals(accounts: list[Account], posted: dict[str, int]) -> Iterator[str]:
    totals: dict[str, int] = {}
    for row in accounts:
        balance = posted.get(row.account_id, 0) if row.is_system else row.balance
        totals[row.currency] = totals.get(row.currency, 0) + balance
    for code, total in sorted(totals.items()):
        if total:
            yield f"{code}: balances of all accounts sum to {total} minor units, not 0"


def _cached_balances(accounts: list[Account], posted: dict[str, int]) -> Iterator[str]:
    for row in accounts:
        if row.is_system:
            continue
        total = posted.get(row.account_id, 0)
        if row.balance != total:
            yield f"{row.account_id}: balance {row.balance} differs from its postings ({total})"


def _cached_holds(session: Session, accounts: list[Account]) -> Iterator[str]:
    sums = dict(
        session.execute(
            select(Hold.account_id, func.sum(Hold.amount))
            .where(Hold.status == HoldStatus.ACTIVE)
            .group_by(Hold.account_id)
        ).all()
    )
    for row in accounts:
        active = int(sums.get(row.account_id) or 0)
        if row.held != active:
            yield f"{row.account_id}: held {row.held} differs from its active holds ({active})"


def _limits(accounts: list[Account]) -> Iterator[str]:
    for row in accounts:
        if row.is_system:
            continue
        if row.balance < -row.overdraft:
            yield f"{row.account_id}: balance {row.balance} is below its overdraft -{row.overdraft}"
        elif row.balance - row.held + row.overdraft < 0:
            yield f"{row.account_id}: holds ({row.held}) exceed balance plus overdraft"


def _unbalanced_entries(session: Session) -> Iterator[str]:
    rows = session.execute(
        select(JournalEntry.idempotency_key, Posting.currency, func.sum(Posting.amount))
        .join(Posting, Posting.entry_id == JournalEntry.entry_id)
        .group_by(JournalEntry.entry_id, JournalEntry.idempotency_key, Posting.currency)
        .having(func.sum(Posting.amount) != 0)
    )
    for key, code, total in rows:
        yield f"entry {key!r}: {code} postings sum to {int(total)}, not 0"


def _foreign_postings(session: Session) -> Iterator[str]:
    rows = session.execute(
        select(JournalEntry.idempotency_key, Posting.account_id, Posting.currency)
        .join(Posting, Posting.entry_id == JournalEntry.entry_id)
        .join(Account, Account.account_id == Posting.account_id)
        .where(Posting.currency != Account.currency)
    )
    for key, account_id, code in rows:
        yield f"entry {key!r}: posts {code} to {account_id!r}, which holds another currency"
