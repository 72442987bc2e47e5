"""The ledger side of operator actions on accounts: a status change, or an account opened with
an overdraft limit, once the operator is verified, and funding once a second operator approved
it."""

from __future__ import annotations

from pydantic import JsonValue
from temporalio import activity

from sagas.engine import (
    ACCOUNT_LIMIT_ACTIVITY,
    ACCOUNT_STATUS_ACTIVITY,
    FUNDING_ACTIVITY,
    AccountLimitCall,
    AccountStatusCall,
    FundingCall,
    funding_entry_key,
    to_application_error,
)
from sagas.foundations import FundsagaError, InvalidRequestError, parse_money
from sagas.ledger import AccountStatus, AccountView, Ledger


class AccountActivities:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    @activity.defn(name=ACCOUNT_STATUS_ACTIVITY)
    def set_status(self, call: AccountStatusCall) -> dict[str, JsonValue]:
        """The account's new status and its version, which the audit record names so that
        `ledger verify` ties the change to it (setting it twice changes nothing)."""
        change = {
            AccountStatus.ACTIVE: self.ledger.unfreeze,
            AccountStatus.FROZEN: self.ledger.freeze,
            AccountStatus.CLOSED: self.ledger.close_account,
        }[AccountStatus(call.status)]
        try:
            view = change(call.account_id)
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return _facts(view)

    @activity.defn(name=ACCOUNT_LIMIT_ACTIVITY)
    def open_with_limit(self, call: AccountLimitCall) -> dict[str, JsonValue]:
        """The account opened with the overdraft limit (found as it is when a retried attempt
        opened it already); an account that exists with another limit is refused."""
        try:
            view = self._opened_with_limit(call)
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return _facts(view) | {"overdraft": view.overdraft.amount_text()}

    def _opened_with_limit(self, call: AccountLimitCall) -> AccountView:
        limit = parse_money(call.overdraft, call.currency, field="overdraft")
        existing = self.ledger.find_account(call.account_id)
        if existing is None:
            return self.ledger.open_account(call.account_id, call.currency, overdraft=limit)
        if existing.overdraft != limit:
            raise InvalidRequestError("account_id", f"{call.account_id!r} already exists")
        return existing

    @activity.defn(name=FUNDING_ACTIVITY)
    def fund(self, call: FundingCall) -> str:
        """The funding entry's id; posted once, whatever the attempts (keyed by the funding)."""
        amount = parse_money(call.amount, call.currency, field="amount")
        try:
            entry = self.ledger.fund(funding_entry_key(call.funding_key), call.account_id, amount)
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return str(entry.entry_id)


def _facts(view: AccountView) -> dict[str, JsonValue]:
    return {
        "account_id": view.account_id,
        "status": view.status.value,
        "status_version": view.status_version,
        "balance": view.balance.amount_text(),
        "currency": view.currency,
    }
