"""Journal entries: idempotent lookup, balanced posting, and plain transfers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, insert, select
from sqlalchemy.orm import Session

from sagas.foundations import KEY_LENGTH, InvalidRequestError, Money
from sagas.ledger._accounts import (
    check_active,
    check_can_take,
    check_currency,
    lock_accounts,
    move,
)
from sagas.ledger._models import Account, JournalEntry, Posting, utc_now
from sagas.ledger._views import EntryKind, EntryView, PostingView, entry_view

Leg = tuple[Account, int]

_INSERT_ENTRY = insert(cast(Table, JournalEntry.__table__))
_INSERT_POSTING = insert(cast(Table, Posting.__table__))


def check_key(key: str, field: str = "key") -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= KEY_LENGTH:
        raise InvalidRequestError(field, f"must be a string of 1-{KEY_LENGTH} characters")
    if not key.isprintable():
        raise InvalidRequestError(field, "must not contain control characters")


def check_amount(amount: Money, field: str = "amount") -> None:
    if not isinstance(amount, Money):
        raise InvalidRequestError(field, "must be Money")
    if amount.minor <= 0:
        raise InvalidRequestError(field, "must be greater than zero")


def find_entry(session: Session, key: str) -> JournalEntry | None:
    return session.scalars(
        select(JournalEntry).where(JournalEntry.idempotency_key == key)
    ).one_or_none()


def replay(
    existing: JournalEntry, kind: EntryKind, legs: Sequence[tuple[str, int]] | None = None
) -> EntryView:
    """The entry already written under a key, if it is the one this request would write.

    A void marker stands in for whatever the key would have written: the request is a no-op.
    """
    if existing.kind != EntryKind.VOID_MARKER:
        written = sorted((p.account_id, p.amount) for p in existing.postings)
        if existing.kind != kind or (legs is not None and written != sorted(legs)):
            raise InvalidRequestError(
                "key",
                f"{existing.idempotency_key!r} was already used by a different "
                f"{existing.kind} entry",
            )
    return entry_view(existing)


def post_entry(
    session: Session,
    *,
    key: str,
    kind: EntryKind,
    saga_id: str | None,
    legs: Sequence[Leg],
    reverses_entry_id: int | None = None,
) -> EntryView:
    """Write one balanced entry and move the cached balances of its accounts.

    The entry and its postings are inserted with prebuilt Core statements: the ORM's unit of
    work was the largest single cost of a ledger step.
    """
    totals: dict[str, int] = {}
    for account, minor in legs:
        totals[account.currency] = totals.get(account.currency, 0) + minor
    if any(totals.values()):
        raise ValueError(f"postings of {key!r} do not sum to zero per currency: {totals}")
    created_at = utc_now()
    connection = session.connection()
    inserted = connection.execute(
        _INSERT_ENTRY,
        {
            "idempotency_key": key,
            "saga_id": saga_id,
            "kind": kind,
            "reverses_entry_id": reverses_entry_id,
            "created_at": created_at,
        },
    )
    entry_id = _new_id(inserted.inserted_primary_key)
    postings = [
        {"entry_id": entry_id, "account_id": a.account_id, "currency": a.currency, "amount": m}
        for a, m in legs
    ]
    if postings:
        connection.execute(_INSERT_POSTING, postings)
    for account, minor in legs:
        move(account, minor)
    session.flush()
    return EntryView(
        entry_id=entry_id,
        idempotency_key=key,
        saga_id=saga_id,
        kind=kind,
        reverses_entry_id=reverses_entry_id,
        postings=tuple(PostingView(a.account_id, Money.of(m, a.currency)) for a, m in legs),
        created_at=created_at,
    )


def _new_id(primary_key: Sequence[object] | None) -> int:
    """The id the database gave the row (lastrowid on SQLite, RETURNING on PostgreSQL)."""
    if primary_key is None or not isinstance(primary_key[0], int):
        raise RuntimeError(f"the database returned no entry id: {primary_key!r}")
    return primary_key[0]


def transfer(
    session: Session,
    key: str,
    source_id: str,
    dest_id: str,
    amount: Money,
    *,
    saga_id: str | None,
    kind: EntryKind = EntryKind.TRANSFER,
) -> EntryView:
    """Move `amount` from source to destination; a known key returns its entry unchanged."""
    check_key(key)
    check_amount(amount)
    if source_id == dest_id:
        raise InvalidRequestError("to_account_id", "must differ from the source account")
    legs = [(source_id, -amount.minor), (dest_id, amount.minor)]
    existing = find_entry(session, key)
    if existing is not None:
        return replay(existing, kind, legs)
    accounts = lock_accounts(session, source_id, dest_id)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(existing, kind, legs)
    source, dest = accounts[source_id], accounts[dest_id]
    for account in (source, dest):
        check_currency(account, amount)
        check_active(account)
    check_can_take(source, amount.minor)
    legs_rows = [(source, -amount.minor), (dest, amount.minor)]
    return post_entry(session, key=key, kind=kind, saga_id=saga_id, legs=legs_rows)
