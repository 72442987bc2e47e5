"""Sweeps: move what an account has available above a floor, computed and posted at once.

The amount is read from the source row locked for the transaction (PostgreSQL `FOR UPDATE`,
SQLite's write lock taken when the transaction begins), so no debit can commit between the
read and the posting: the source never ends with less than the floor available.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError, Money
from sagas.ledger._accounts import check_active, check_currency, lock_accounts
from sagas.ledger._declarations import declarations_of
from sagas.ledger._journal import check_key, find_entry, post_entry, replay
from sagas.ledger._models import Account, JournalEntry
from sagas.ledger._views import EntryView


def sweep(
    session: Session,
    key: str,
    source_id: str,
    dest_id: str,
    keep: Money,
    *,
    kind: str,
    saga_id: str,
) -> EntryView | None:
    """Move the source's available money (balance - held) above `keep` to the destination.

    None when nothing is above `keep` (no entry is written); a known key returns its entry.
    """
    check_key(key)
    declarations_of(session).check_kind(kind)
    if not isinstance(keep, Money) or keep.minor < 0:
        raise InvalidRequestError("keep", "must be Money, zero or more")
    if source_id == dest_id:
        raise InvalidRequestError("to_account_id", "must differ from the source account")
    existing = find_entry(session, key)
    if existing is not None:
        return _replay(session, existing, kind, source_id, dest_id)
    accounts = lock_accounts(session, source_id, dest_id)
    existing = find_entry(session, key)
    if existing is not None:
        return _replay(session, existing, kind, source_id, dest_id)
    source, dest = accounts[source_id], accounts[dest_id]
    if source.is_system:
        raise InvalidRequestError("from_account_id", "a system account has no funds of its own")
    for account in (source, dest):
        check_currency(account, keep)
        check_active(account)
    amount = sweepable(source) - keep.minor
    if amount <= 0:
        return None
    legs = [(source, -amount), (dest, amount)]
    return post_entry(session, key=key, kind=kind, saga_id=saga_id, legs=legs)


def sweepable(account: Account) -> int:
    """Minor units the account has of its own to give: held money and overdraft excluded."""
    return account.balance - account.held


def _replay(
    session: Session, existing: JournalEntry, kind: str, source_id: str, dest_id: str
) -> EntryView:
    """The sweep already posted under the key, whatever amount it moved then."""
    view = replay(session, existing, kind)
    signs = {p.account_id: p.amount.minor > 0 for p in view.postings}
    if signs != {source_id: False, dest_id: True}:
        raise InvalidRequestError(
            "key", f"{existing.idempotency_key!r} was already used by a different {kind} entry"
        )
    return view
