"""Opening, funding, freezing and closing accounts."""

from __future__ import annotations

from sqlalchemy.orm import Session

from sagas.foundations import AccountClosedError, Currency, InvalidRequestError, Money, currency
from sagas.ledger._accounts import (
    check_user_account_id,
    find_account_row,
    funding_account_id,
    lock_account,
    new_account,
)
from sagas.ledger._clock import transaction_now
from sagas.ledger._status import change_status
from sagas.ledger._transfer import transfer
from sagas.ledger._views import AccountStatus, AccountView, EntryKind, EntryView, account_view


def open_account(
    session: Session,
    account_id: str,
    code: str,
    *,
    opening_balance: Money | None,
    overdraft: Money | None,
) -> AccountView:
    check_user_account_id(account_id)
    cur = currency(code)
    opening = _non_negative(opening_balance, cur, "opening_balance")
    limit = _non_negative(overdraft, cur, "overdraft")
    if find_account_row(session, account_id) is not None:
        raise InvalidRequestError("account_id", f"{account_id!r} already exists")
    row = new_account(account_id, cur.code, transaction_now(session), overdraft=limit)
    session.add(row)
    session.flush()
    if opening:
        fund(session, f"open:{account_id}", account_id, Money(opening, cur))
    return account_view(row)


def adjust(session: Session, key: str, account_id: str, amount: Money) -> EntryView:
    """A funding in either direction: into the account when positive, out when negative."""
    if amount.minor >= 0:
        return fund(session, key, account_id, amount)
    check_user_account_id(account_id)
    outside = funding_account_id(amount.currency.code)
    return transfer(
        session, key, account_id, outside, -amount, saga_id=None, kind=EntryKind.FUNDING
    )


def fund(session: Session, key: str, account_id: str, amount: Money) -> EntryView:
    """Bring money from the outside world (@funding) into a customer account."""
    check_user_account_id(account_id)
    source = funding_account_id(amount.currency.code)
    return transfer(session, key, source, account_id, amount, saga_id=None, kind=EntryKind.FUNDING)


def set_status(session: Session, account_id: str, status: AccountStatus) -> AccountView:
    """Freeze, unfreeze or close an account; repeating the current status is a no-op."""
    row = lock_account(session, account_id)
    if row.is_system:
        raise InvalidRequestError("account_id", "system accounts are always active")
    if row.status == status:
        return account_view(row)
    if row.status == AccountStatus.CLOSED:
        raise AccountClosedError(f"account {account_id!r} is closed")
    if status == AccountStatus.CLOSED and (row.balance or row.held):
        raise InvalidRequestError(
            "account_id", f"{account_id!r} cannot close with a non-zero balance or held amount"
        )
    change_status(session, row, status)
    return account_view(row)


def _non_negative(amount: Money | None, cur: Currency, field: str) -> int:
    if amount is None:
        return 0
    if not isinstance(amount, Money):
        raise InvalidRequestError(field, "must be Money")
    if amount.currency != cur:
        raise InvalidRequestError(field, f"must be in {cur.code}, not {amount.currency.code}")
    if amount.minor < 0:
        raise InvalidRequestError(field, "must not be negative")
    return amount.minor
