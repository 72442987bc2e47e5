"""Transfers, pending transfers and settlements: the ledger's own two-leg and postingless
entries.

A settlement is the postingless last word of a transfer, written only when its clearing leg
nets to zero.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError, Money
from sagas.ledger._accounts import (
    check_active,
    check_can_take,
    check_currency,
    lock_account,
    lock_accounts,
)
from sagas.ledger._holds import add_hold, check_holdable, find_hold
from sagas.ledger._invariants import net_effect
from sagas.ledger._journal import check_amount, check_key, find_entry, post_entry, replay
from sagas.ledger._pending import pending_hold_key
from sagas.ledger._views import EntryKind, EntryView


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
    accounts = lock_accounts(session, source_id, dest_id)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, kind, legs)
    source, dest = accounts[source_id], accounts[dest_id]
    for account in (source, dest):
        check_currency(account, amount)
        check_active(account)
    check_can_take(source, amount.minor)
    legs_rows = [(source, -amount.minor), (dest, amount.minor)]
    return post_entry(session, key=key, kind=kind, saga_id=saga_id, legs=legs_rows)


def settle(session: Session, key: str, clearing_account_id: str, *, saga_id: str) -> EntryView:
    """Write a postingless 'settlement' entry; refuse while money of the saga sits in clearing."""
    check_key(key)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, EntryKind.SETTLEMENT)
    in_clearing = net_effect(session, saga_id).get(clearing_account_id)
    if in_clearing is not None:
        raise InvalidRequestError(
            "saga_id", f"{in_clearing} of saga {saga_id} is still in {clearing_account_id}"
        )
    return post_entry(session, key=key, kind=EntryKind.SETTLEMENT, saga_id=saga_id, legs=[])


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
