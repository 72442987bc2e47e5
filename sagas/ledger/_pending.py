"""Pending credits: money in the payee's balance that it cannot spend until the saga releases it.

A saga that may still compensate credits pending; its compensation reverses the credit
consuming the pending hold, so it never depends on what the payee spent; its last step voids
the hold, which makes the money available.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError, Money
from sagas.ledger._accounts import lock_account
from sagas.ledger._holds import add_hold, check_holdable, find_hold
from sagas.ledger._journal import check_key, find_entry, transfer
from sagas.ledger._views import EntryView

PENDING_SUFFIX = ":pending"


def pending_hold_key(key: str) -> str:
    """The key of the hold that keeps the credit written under `key` pending."""
    return f"{key}{PENDING_SUFFIX}"


def transfer_pending(
    session: Session,
    key: str,
    source_id: str,
    dest_id: str,
    amount: Money,
    *,
    saga_id: str,
) -> EntryView:
    """Move `amount` and hold it on the destination, in one transaction; a known key replays."""
    hold_key = pending_hold_key(key)
    check_key(hold_key, "key")
    replaying = find_entry(session, key) is not None
    entry = transfer(session, key, source_id, dest_id, amount, saga_id=saga_id)
    hold = find_hold(session, hold_key)
    if replaying:
        if hold is None or hold.account_id != dest_id:
            raise InvalidRequestError("key", f"{key!r} was already used by a transfer not pending")
        return entry
    if hold is not None:
        raise InvalidRequestError("key", f"the pending hold {hold_key!r} was released already")
    payee = lock_account(session, dest_id)
    check_holdable(payee, "to_account_id")
    add_hold(session, hold_key, payee, amount.minor, saga_id=saga_id)
    return entry
