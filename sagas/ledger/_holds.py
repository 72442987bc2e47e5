"""Holds: reserve funds, then post them by a capture or release them by a void, exactly once."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from sagas.foundations import (
    EffectCompensatedError,
    InvalidRequestError,
    Money,
    UnknownAccountError,
    not_before,
)
from sagas.ledger._accounts import (
    check_active,
    check_can_take,
    check_currency,
    find_account_row,
    lock_account,
    lock_accounts,
)
from sagas.ledger._clock import transaction_now
from sagas.ledger._journal import (
    AccountLeg,
    check_amount,
    check_key,
    find_entry,
    post_entry,
    replay,
)
from sagas.ledger._models import Account, Hold
from sagas.ledger._signing import sign_hold
from sagas.ledger._views import EntryKind, EntryView, HoldStatus, HoldView, hold_view

_HOLD_BY_KEY = select(Hold).where(Hold.hold_key == bindparam("hold_key"))
_HOLD_BY_KEY_LOCKED = _HOLD_BY_KEY.with_for_update().execution_options(populate_existing=True)
"""Built once (their SQL cache key with them); the key travels as a parameter."""


def find_hold(session: Session, hold_key: str, *, lock: bool = False) -> Hold | None:
    query = _HOLD_BY_KEY_LOCKED if lock else _HOLD_BY_KEY
    return session.scalars(query, {"hold_key": hold_key}).one_or_none()


def place_hold(
    session: Session,
    key: str,
    account_id: str,
    amount: Money,
    *,
    saga_id: str,
    payee: str | None = None,
) -> HoldView:
    """Reserve `amount` on the account; a known key returns its hold.

    A key whose hold was voided (by its compensation, or as a tombstone before it arrived)
    raises EffectCompensatedError: the undone reservation is not reported as made.
    """
    check_key(key)
    check_amount(amount)
    existing = find_hold(session, key)
    if existing is not None:
        return _replay_hold(existing, account_id, amount)
    if payee is not None:
        _check_payee(session, payee, amount)
    account = lock_account(session, account_id)
    existing = find_hold(session, key)
    if existing is not None:
        return _replay_hold(existing, account_id, amount)
    check_holdable(account)
    check_currency(account, amount)
    check_active(account)
    check_can_take(account, amount.minor)
    return hold_view(add_hold(session, key, account, amount.minor, saga_id=saga_id))


def check_holdable(account: Account, field: str = "account_id") -> None:
    if account.is_system:
        raise InvalidRequestError(field, "system accounts take no holds: they have no limit")


def add_hold(session: Session, key: str, account: Account, minor: int, *, saga_id: str) -> Hold:
    """Reserve `minor` units on the (locked, checked) account as an active hold under `key`."""
    now = transaction_now(session)
    account.held += minor
    account.updated_at = not_before(now, account.updated_at)
    hold = Hold(
        hold_key=key,
        account_id=account.account_id,
        currency=account.currency,
        amount=minor,
        status=HoldStatus.ACTIVE,
        saga_id=saga_id,
        created_at=now,
    )
    sign_hold(session, hold)
    session.add(hold)
    session.flush()
    return hold


def void_hold(session: Session, hold_key: str, *, saga_id: str) -> HoldView:
    """Release an active hold; a missing hold gets a voided tombstone so a late place is a no-op."""
    check_key(hold_key, "hold_key")
    hold = find_hold(session, hold_key, lock=True)
    if hold is None:
        return hold_view(_tombstone(session, hold_key, saga_id))
    if hold.status != HoldStatus.ACTIVE or hold.account_id is None:
        return hold_view(hold)
    account = lock_account(session, hold.account_id)
    account.held -= hold.amount
    account.updated_at = not_before(transaction_now(session), account.updated_at)
    _close(session, hold, HoldStatus.VOIDED)
    session.flush()
    return hold_view(hold)


def capture_hold(
    session: Session, key: str, hold_key: str, to_account_id: str, *, saga_id: str
) -> EntryView:
    """Post an active hold to `to_account_id` as a capture entry; a known key returns it."""
    check_key(key)
    check_key(hold_key, "hold_key")
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, EntryKind.CAPTURE)
    locked = find_hold(session, hold_key, lock=True)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, EntryKind.CAPTURE)
    hold, account_id, cur = capturable(locked, hold_key)
    if account_id == to_account_id:
        raise InvalidRequestError("to_account_id", "must differ from the held account")
    accounts = lock_accounts(session, account_id, to_account_id)
    source, dest = accounts[account_id], accounts[to_account_id]
    check_currency(dest, Money.of(hold.amount, cur))
    check_active(dest)
    post_hold(session, hold, source)
    legs = [(source, -hold.amount), (dest, hold.amount)]
    return post_entry(session, key=key, kind=EntryKind.CAPTURE, saga_id=saga_id, legs=legs)


def capturable(hold: Hold | None, hold_key: str, field: str = "hold_key") -> tuple[Hold, str, str]:
    """The active hold under `hold_key`, its account and currency; refused naming `field`."""
    if hold is None:
        raise InvalidRequestError(field, f"no hold {hold_key!r}")
    if hold.status != HoldStatus.ACTIVE or hold.account_id is None or hold.currency is None:
        raise InvalidRequestError(field, f"hold {hold_key!r} is already {hold.status}")
    return hold, hold.account_id, hold.currency


def post_hold(session: Session, hold: Hold, account: Account) -> None:
    """Release the hold's reservation on its (locked) account and mark it posted: the entry
    written in the same transaction moves its money."""
    account.held -= hold.amount
    _close(session, hold, HoldStatus.POSTED)


def consume(
    session: Session,
    locked: Hold | None,
    hold_key: str,
    legs: Sequence[AccountLeg],
    saga_id: str,
) -> None:
    """Post the saga's hold on a debited account: its reserved money is what that leg takes."""
    hold, account_id, _ = capturable(locked, hold_key, "consume_hold")
    if hold.saga_id != saga_id:
        raise InvalidRequestError("consume_hold", f"hold {hold_key!r} belongs to another saga")
    debited: dict[str, tuple[Account, int]] = {a.account_id: (a, -m) for a, m in legs if m < 0}
    if account_id not in debited:
        raise InvalidRequestError(
            "consume_hold", f"hold {hold_key!r} is on {account_id!r}, which no leg debits"
        )
    account, debit = debited[account_id]
    if hold.amount > debit:
        raise InvalidRequestError(
            "consume_hold",
            f"hold {hold_key!r} reserves {Money.of(hold.amount, account.currency)}, more than "
            f"the {Money.of(debit, account.currency)} taken from {account_id!r}",
        )
    post_hold(session, hold, account)


def _check_payee(session: Session, payee: str, amount: Money) -> None:
    """The account the held money is meant for exists and takes its currency."""
    row = find_account_row(session, payee)
    if row is None:
        raise UnknownAccountError(f"no account {payee!r}", account_id=payee)
    check_currency(row, amount)


def _replay_hold(existing: Hold, account_id: str, amount: Money) -> HoldView:
    view = hold_view(existing)
    if view.status is HoldStatus.VOIDED:
        raise EffectCompensatedError(
            f"hold {existing.hold_key!r} was voided by its compensation: it is not placed again"
        )
    if not view.is_tombstone and (view.account_id, view.amount) != (account_id, amount):
        raise InvalidRequestError(
            "key", f"{existing.hold_key!r} was already used for a different hold"
        )
    return view


def _tombstone(session: Session, hold_key: str, saga_id: str) -> Hold:
    now = transaction_now(session)
    hold = Hold(
        hold_key=hold_key,
        account_id=None,
        currency=None,
        amount=0,
        status=HoldStatus.VOIDED,
        saga_id=saga_id,
        created_at=now,
        closed_at=now,
    )
    sign_hold(session, hold)
    session.add(hold)
    session.flush()
    return hold


def _close(session: Session, hold: Hold, status: HoldStatus) -> None:
    hold.status = status
    hold.closed_at = transaction_now(session)
    sign_hold(session, hold)
