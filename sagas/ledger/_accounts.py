"""Account ids, system accounts, row locking and the checks every movement makes."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from sagas.foundations import (
    AccountClosedError,
    AccountFrozenError,
    Currency,
    CurrencyMismatchError,
    InsufficientFundsError,
    InvalidRequestError,
    Money,
    UnknownAccountError,
    currency,
)
from sagas.ledger._clock import transaction_now
from sagas.ledger._declarations import (
    BUILT_IN_ROLES,
    Declarations,
    check_role,
    declarations_of,
)
from sagas.ledger._models import Account
from sagas.ledger._views import AccountStatus

_ACCOUNT_ID = re.compile(r"[A-Za-z0-9_.:@-]{1,64}")
_SYSTEM_ID = re.compile(r"@(?P<role>[a-z0-9_-]+):(?P<code>[A-Z]{3})")
_ACCOUNT_LOCKED = (
    select(Account).where(Account.account_id == bindparam("account_id")).with_for_update()
)
"""Built once (its SQL cache key with it): every movement locks its accounts with it."""


def system_account_id(role: str, code: str) -> str:
    """The system account of `role` (built in, or declared to the Ledger) in currency `code`."""
    if role not in BUILT_IN_ROLES:
        check_role(role, "role")
    return f"@{role}:{currency(code).code}"


def funding_account_id(code: str) -> str:
    """The system account standing for the outside world in currency `code`."""
    return system_account_id("funding", code)


def clearing_account_id(code: str) -> str:
    """The system account holding in-flight transfer money in currency `code`."""
    return system_account_id("clearing", code)


def check_user_account_id(account_id: str) -> None:
    if not isinstance(account_id, str) or _ACCOUNT_ID.fullmatch(account_id) is None:
        raise InvalidRequestError(
            "account_id", "must be 1-64 characters of letters, digits and - _ . : @"
        )
    if account_id.startswith("@"):
        raise InvalidRequestError("account_id", "ids starting with '@' are reserved for the system")


def system_currency(account_id: str, declared: Declarations) -> Currency | None:
    """The currency of a system account id of a known role, or None for any other id."""
    match = _SYSTEM_ID.fullmatch(account_id)
    if match is None or not declared.knows_role(match.group("role")):
        return None
    try:
        return currency(match.group("code"))
    except InvalidRequestError:
        return None


def new_account(account_id: str, code: str, now: datetime, *, overdraft: int = 0) -> Account:
    return Account(
        account_id=account_id,
        currency=code,
        status=AccountStatus.ACTIVE,
        is_system=account_id.startswith("@"),
        balance=0,
        held=0,
        overdraft=overdraft,
        created_at=now,
        updated_at=now,
    )


def lock_account(session: Session, account_id: str) -> Account:
    """The account row, locked for this transaction; system accounts are created on demand."""
    row = session.scalars(_ACCOUNT_LOCKED, {"account_id": account_id}).one_or_none()
    if row is not None:
        return row
    cur = system_currency(account_id, declarations_of(session))
    if cur is None:
        raise UnknownAccountError(f"no account {account_id!r}")
    row = new_account(account_id, cur.code, transaction_now(session))
    session.add(row)
    session.flush()
    return row


def lock_accounts(session: Session, *account_ids: str) -> dict[str, Account]:
    """Lock several accounts in id order, so concurrent movements cannot deadlock."""
    return {account_id: lock_account(session, account_id) for account_id in sorted(account_ids)}


def find_account_row(session: Session, account_id: str) -> Account | None:
    return session.get(Account, account_id)


def check_currency(account: Account, amount: Money) -> None:
    if account.currency != amount.currency.code:
        raise CurrencyMismatchError(
            f"account {account.account_id!r} holds {account.currency}, not {amount.currency.code}"
        )


def check_active(account: Account) -> None:
    if account.status == AccountStatus.FROZEN:
        raise AccountFrozenError(f"account {account.account_id!r} is frozen")
    if account.status == AccountStatus.CLOSED:
        raise AccountClosedError(f"account {account.account_id!r} is closed")


def check_can_take(account: Account, minor: int) -> None:
    """Refuse taking `minor` units when it would leave less than nothing available."""
    if account.is_system:
        return
    available = account.balance - account.held + account.overdraft
    if available < minor:
        have, need = Money.of(available, account.currency), Money.of(minor, account.currency)
        raise InsufficientFundsError(
            f"account {account.account_id!r} has {have} available, needs {need}"
        )


def move(account: Account, minor: int, at: datetime) -> None:
    account.balance += minor
    account.updated_at = at
