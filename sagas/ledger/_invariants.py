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
    return [
        *chain_findings(session),
        *_currency_totals(session),
        *_cached_balances(session, accounts),
        *_cached_holds(session, accounts),
        *_limits(accounts),
        *_unbalanced_entries(session),
        *_foreign_postings(session),
    ]


def net_effect(session: Session, saga_id: str) -> dict[str, Money]:
    rows = session.execute(_NET_EFFECT, {"saga_id": saga_id})
    return {account: Money.of(int(total), code) for account, code, total in rows if total}


def _currency_totals(session: Session) -> Iterator[str]:
    rows = session.execute(
        select(Account.currency, func.sum(Account.balance))
        .group_by(Account.currency)
        .order_by(Account.currency)
    )
    for code, total in rows:
        if total:
            yield f"{code}: balances of all accounts sum to {int(total)} minor units, not 0"


def _cached_balances(session: Session, accounts: list[Account]) -> Iterator[str]:
    sums = dict(
        session.execute(
            select(Posting.account_id, func.sum(Posting.amount)).group_by(Posting.account_id)
        ).all()
    )
    for row in accounts:
        posted = int(sums.get(row.account_id) or 0)
        if row.balance != posted:
            yield f"{row.account_id}: balance {row.balance} differs from its postings ({posted})"


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
