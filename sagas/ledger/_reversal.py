"""Reversals: a new entry negating an earlier one, at most once, never overdrawing."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError
from sagas.ledger._accounts import check_can_take, lock_accounts
from sagas.ledger._journal import check_key, find_entry, post_entry
from sagas.ledger._models import JournalEntry
from sagas.ledger._views import EntryKind, EntryView, entry_view


def reverse(session: Session, key: str, original_key: str, *, saga_id: str) -> EntryView | None:
    """Negate the entry under `original_key`, whatever the accounts' status.

    When there is no such entry yet, a void marker takes its key so the original, should it
    arrive late, becomes a no-op; the result is then None, as it is for an already marked key.
    """
    check_key(key)
    check_key(original_key, "original_key")
    if key == original_key:
        raise InvalidRequestError("key", "must differ from original_key")
    existing = find_entry(session, key)
    if existing is not None:
        return _replay(session, existing, original_key)
    original = find_entry(session, original_key)
    if original is None:
        post_entry(session, key=original_key, kind=EntryKind.VOID_MARKER, saga_id=saga_id, legs=[])
        return None
    if original.kind == EntryKind.VOID_MARKER:
        return None
    if original.kind == EntryKind.REVERSAL:
        raise InvalidRequestError("original_key", f"{original_key!r} is itself a reversal")
    accounts = lock_accounts(session, *{p.account_id for p in original.postings})
    existing = find_entry(session, key)
    if existing is not None:
        return _replay(session, existing, original_key)
    _check_not_reversed(session, original)
    legs = [(accounts[p.account_id], -p.amount) for p in original.postings]
    for account, minor in legs:
        if minor < 0:
            check_can_take(account, -minor)
    return post_entry(
        session,
        key=key,
        kind=EntryKind.REVERSAL,
        saga_id=saga_id,
        legs=legs,
        reverses_entry_id=original.entry_id,
    )


def _replay(session: Session, existing: JournalEntry, original_key: str) -> EntryView | None:
    if existing.kind == EntryKind.VOID_MARKER:
        return None
    original = find_entry(session, original_key)
    if original is None or existing.reverses_entry_id != original.entry_id:
        raise InvalidRequestError(
            "key", f"{existing.idempotency_key!r} was already used by a different entry"
        )
    return entry_view(existing)


def _check_not_reversed(session: Session, original: JournalEntry) -> None:
    earlier = session.scalars(
        select(JournalEntry).where(JournalEntry.reverses_entry_id == original.entry_id)
    ).one_or_none()
    if earlier is not None:
        raise InvalidRequestError(
            "original_key",
            f"{original.idempotency_key!r} was already reversed by {earlier.idempotency_key!r}",
        )
