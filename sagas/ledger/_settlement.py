"""Settlement: the last word of a transfer, written only when its clearing leg nets to zero."""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError
from sagas.ledger._invariants import net_effect
from sagas.ledger._journal import check_key, find_entry, post_entry, replay
from sagas.ledger._views import EntryKind, EntryView


def settle(session: Session, key: str, clearing_account_id: str, *, saga_id: str) -> EntryView:
    """Write a postingless 'settlement' entry; refuse while money of the saga sits in clearing."""
    check_key(key)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(existing, EntryKind.SETTLEMENT)
    in_clearing = net_effect(session, saga_id).get(clearing_account_id)
    if in_clearing is not None:
        raise InvalidRequestError(
            "saga_id", f"{in_clearing} of saga {saga_id} is still in {clearing_account_id}"
        )
    return post_entry(session, key=key, kind=EntryKind.SETTLEMENT, saga_id=saga_id, legs=[])
