"""Reversals: a new entry negating an earlier one, at most once, never overdrawing."""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError
from sagas.ledger._accounts import check_can_take, lock_accounts
from sagas.ledger._holds import consume, find_hold
from sagas.ledger._journal import check_key, find_entry, post_entry, reversal_of
from sagas.ledger._models import Hold, JournalEntry
from sagas.ledger._views import EntryKind, EntryView, HoldStatus, entry_view


def reverse(
    session: Session,
    key: str,
    original_key: str,
    *,
    saga_id: str,
    consume_hold: str | None = None,
) -> EntryView | None:
    """Negate the entry under `original_key`, whatever the accounts' status.

    When there is no such entry yet, a void marker takes its key so the original, should it
    arrive late, becomes a no-op; the result is then None, as it is for an already marked key.
    With `consume_hold`, that hold, while active, is posted with the reversal before its funds
    check, so money held pending on an account is always taken back; once voided (made final),
    the reversal takes the money as any other.
    """
    check_key(key)
    check_key(original_key, "original_key")
    if consume_hold is not None:
        check_key(consume_hold, "consume_hold")
    if key == original_key:
        raise InvalidRequestError("key", "must differ from original_key")
    existing = find_entry(session, key)
    if existing is not None:
        return _replay_reversal(session, existing, original_key)
    original = find_entry(session, original_key)
    if original is None:
        post_entry(session, key=original_key, kind=EntryKind.VOID_MARKER, saga_id=saga_id, legs=[])
        return None
    if original.kind == EntryKind.VOID_MARKER:
        return None
    if original.kind == EntryKind.REVERSAL:
        raise InvalidRequestError("original_key", f"{original_key!r} is itself a reversal")
    hold = None if consume_hold is None else _pending_hold(session, consume_hold)
    accounts = lock_accounts(session, *{p.account_id for p in original.postings})
    existing = find_entry(session, key)
    if existing is not None:
        return _replay_reversal(session, existing, original_key)
    _check_not_reversed(session, original)
    legs = [(accounts[p.account_id], -p.amount) for p in original.postings]
    if hold is not None and hold.status == HoldStatus.ACTIVE:
        consume(session, hold, hold.hold_key, legs, saga_id)
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


def _pending_hold(session: Session, hold_key: str) -> Hold:
    """The hold to consume, locked before the accounts as every hold-moving call does."""
    hold = find_hold(session, hold_key, lock=True)
    if hold is None:
        raise InvalidRequestError("consume_hold", f"no hold {hold_key!r}")
    return hold


def _replay_reversal(
    session: Session, existing: JournalEntry, original_key: str
) -> EntryView | None:
    if existing.kind == EntryKind.VOID_MARKER:
        return None
    original = find_entry(session, original_key)
    if original is None or existing.reverses_entry_id != original.entry_id:
        raise InvalidRequestError(
            "key", f"{existing.idempotency_key!r} was already used by a different entry"
        )
    return entry_view(existing)


def _check_not_reversed(session: Session, original: JournalEntry) -> None:
    earlier = reversal_of(session, original)
    if earlier is not None:
        raise InvalidRequestError(
            "original_key",
            f"{original.idempotency_key!r} was already reversed by {earlier.idempotency_key!r}",
        )
