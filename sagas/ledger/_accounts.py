"""Account ids, system accounts, row locking and the checks every movement makes."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
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
from sagas.ledger._models import Account, Posting
from sagas.ledger._views import AccountStatus, AccountView, account_view

KNOWN_SYSTEM_INFO = "fundsaga_known_system_accounts"
"""The session.info key of the Ledger's system accounts whose rows exist, with their currency."""
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
        status_version=0,
    )


def lock_account(session: Session, account_id: str) -> Account:
    """A customer account's row, locked for this transaction; a system account unlocked.

    A system account is always active, takes no holds and has no limit, so nothing about it
    needs a lock: its row is created on first use and never written again, and its balance is
    the sum of its postings. So entries of different customers never wait on a shared account.
    """
    if account_id.startswith("@"):
        return system_account(session, account_id)
    row = session.scalars(_ACCOUNT_LOCKED, {"account_id": account_id}).one_or_none()
    if row is None:
        raise UnknownAccountError(f"no account {account_id!r}", account_id=account_id)
    return row


def system_account(session: Session, account_id: str) -> Account:
    """A stand-in for the system account (never added to the session), its row made if new.

    A role not declared to this ledger reaches only the accounts that exist already: a ledger
    reading or reversing entries need not know every saga type's declarations."""
    known: dict[str, str] = session.info.setdefault(KNOWN_SYSTEM_INFO, {})
    code = known.get(account_id)
    if code is None:
        code = _existing_or_new(session, account_id)
        known[account_id] = code
    return Account(
        account_id=account_id,
        currency=code,
        status=AccountStatus.ACTIVE,
        is_system=True,
        balance=0,
        held=0,
        overdraft=0,
    )


def _existing_or_new(session: Session, account_id: str) -> str:
    """The currency of the system account, its row inserted unless another writer did."""
    cur = system_currency(account_id, declarations_of(session))
    if cur is None:
        existing = session.scalar(select(Account.currency).where(Account.account_id == account_id))
        if existing is None or not account_id.startswith("@"):
            raise UnknownAccountError(f"no account {account_id!r}", account_id=account_id)
        return existing
    _insert_if_missing(session, new_account(account_id, cur.code, transaction_now(session)))
    return cur.code


def _insert_if_missing(session: Session, row: Account) -> None:
    values = {column.key: getattr(row, column.key) for column in Account.__table__.columns}
    dialect = session.get_bind().dialect.name
    statement = (pg_insert if dialect == "postgresql" else sqlite_insert)(Account).values(values)
    session.execute(statement.on_conflict_do_nothing(index_elements=["account_id"]))


def lock_accounts(session: Session, *account_ids: str) -> dict[str, Account]:
    """Lock several accounts in id order, so concurrent movements cannot deadlock."""
    return {account_id: lock_account(session, account_id) for account_id in sorted(account_ids)}


_SYSTEM_BALANCES = (
    select(Posting.account_id, func.sum(Posting.amount))
    .where(Posting.account_id.in_(bindparam("account_ids", expanding=True)))
    .group_by(Posting.account_id)
)


def account_views(session: Session, rows: list[Account]) -> list[AccountView]:
    """Views of the rows, each system account's balance summed from its postings."""
    system = [row.account_id for row in rows if row.is_system]
    sums: dict[str, int] = {}
    if system:
        sums = {a: int(t) for a, t in session.execute(_SYSTEM_BALANCES, {"account_ids": system})}
    return [
        account_view(row, sums.get(row.account_id, 0) if row.is_system else None) for row in rows
    ]


def find_account_row(session: Session, account_id: str) -> Account | None:
    return session.get(Account, account_id)


def check_currency(account: Account, amount: Money) -> None:
    if account.currency != amount.currency.code:
        raise CurrencyMismatchError(
            f"account {account.account_id!r} holds {account.currency}, not {amount.currency.code}",
            account_id=account.account_id,
        )


def check_active(account: Account) -> None:
    account_id = account.account_id
    if account.status == AccountStatus.FROZEN:
        raise AccountFrozenError(f"account {account_id!r} is frozen", account_id=account_id)
    if account.status == AccountStatus.CLOSED:
        raise AccountClosedError(f"account {account_id!r} is closed", account_id=account_id)


def check_can_take(account: Account, minor: int) -> None:
    """Refuse taking `minor` units when it would leave less than nothing available."""
    if account.is_system:
        return
    available = account.balance - account.held + account.overdraft
    if available < minor:
        have, need = Money.of(available, account.currency), Money.of(minor, account.currency)
        raise InsufficientFundsError(
            f"account {account.account_id!r} has {have} available, needs {need}",
            account_id=account.account_id,
        )
