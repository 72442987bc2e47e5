from __future__ import annotations

import pytest

from sagas import (
    AccountClosedError,
    CurrencyMismatchError,
    InvalidRequestError,
    Money,
    UnknownAccountError,
)
from sagas.ledger import AccountStatus, EntryKind, Ledger, funding_account_id
from tests.ledger._money import eur, usd


def test_open_account_with_opening_balance_funds_it(ledger: Ledger) -> None:
    view = ledger.open_account("alice", "EUR", opening_balance=eur(10_000), overdraft=eur(500))

    assert view.balance == eur(10_000)
    assert view.held == eur(0)
    assert view.overdraft == eur(500)
    assert view.available == eur(10_500)
    assert view.status is AccountStatus.ACTIVE
    assert not view.is_system
    assert view.created_at.tzinfo is not None
    opening = ledger.entry("open:alice")
    assert opening is not None
    assert opening.kind is EntryKind.FUNDING
    assert ledger.account(funding_account_id("EUR")).balance == eur(-10_000)
    assert ledger.check_invariants() == []


def test_fund_adds_money_from_funding_once(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR")

    first = ledger.fund("topup-1", "alice", eur(250))
    again = ledger.fund("topup-1", "alice", eur(250))

    assert again == first
    assert ledger.account("alice").balance == eur(250)
    assert ledger.check_invariants() == []


def test_accounts_lists_customers_and_optionally_system_accounts(ledger: Ledger) -> None:
    ledger.open_account("bob", "EUR")
    ledger.open_account("alice", "USD", opening_balance=usd(1))

    assert [a.account_id for a in ledger.accounts()] == ["alice", "bob"]
    listed = [a.account_id for a in ledger.accounts(include_system=True)]
    assert listed == ["@funding:USD", "alice", "bob"]
    assert ledger.find_account("carol") is None
    with pytest.raises(UnknownAccountError):
        ledger.account("carol")


@pytest.mark.parametrize(
    ("account_id", "currency", "options", "field"),
    [
        ("", "EUR", {}, "account_id"),
        ("a" * 65, "EUR", {}, "account_id"),
        ("bad id", "EUR", {}, "account_id"),
        ("tab\tid", "EUR", {}, "account_id"),
        ("@funding:EUR", "EUR", {}, "account_id"),
        ("alice", "eur", {}, "currency"),
        ("alice", "XYZ", {}, "currency"),
        ("alice", "EUR", {"opening_balance": usd(100)}, "opening_balance"),
        ("alice", "EUR", {"opening_balance": eur(-1)}, "opening_balance"),
        ("alice", "EUR", {"overdraft": eur(-1)}, "overdraft"),
        ("alice", "EUR", {"overdraft": usd(5)}, "overdraft"),
    ],
)
def test_open_account_refuses_bad_input_naming_the_field_and_writes_nothing(
    ledger: Ledger, account_id: str, currency: str, options: dict[str, Money], field: str
) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        ledger.open_account(account_id, currency, **options)

    assert raised.value.field == field
    assert ledger.accounts(include_system=True) == []
    assert ledger.entries() == []


def test_open_account_refuses_a_duplicate_id(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))

    with pytest.raises(InvalidRequestError) as raised:
        ledger.open_account("alice", "EUR", opening_balance=eur(100))

    assert raised.value.field == "account_id"
    assert ledger.account("alice").balance == eur(100)


def test_fund_refuses_system_accounts_and_foreign_currency(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR")

    with pytest.raises(InvalidRequestError) as raised:
        ledger.fund("f1", "@clearing:EUR", eur(5))
    assert raised.value.field == "account_id"
    with pytest.raises(CurrencyMismatchError):
        ledger.fund("f2", "alice", usd(5))
    with pytest.raises(InvalidRequestError) as raised:
        ledger.fund("f3", "alice", eur(0))
    assert raised.value.field == "amount"
    assert ledger.entries() == []


def test_freeze_unfreeze_and_close(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))

    assert ledger.freeze("alice").status is AccountStatus.FROZEN
    assert ledger.freeze("alice").status is AccountStatus.FROZEN
    assert ledger.unfreeze("alice").status is AccountStatus.ACTIVE
    with pytest.raises(InvalidRequestError) as raised:
        ledger.close_account("alice")
    assert raised.value.field == "account_id"

    ledger.open_account("empty", "EUR")
    assert ledger.close_account("empty").status is AccountStatus.CLOSED
    with pytest.raises(AccountClosedError):
        ledger.unfreeze("empty")


def test_close_refuses_until_balance_and_held_are_zero(ledger: Ledger) -> None:
    ledger.open_account("bob", "EUR", opening_balance=eur(10))
    ledger.place_hold("h", "bob", eur(10), saga_id="s")

    with pytest.raises(InvalidRequestError):
        ledger.close_account("bob")

    ledger.capture_hold("c", "h", "@clearing:EUR", saga_id="s")
    assert ledger.close_account("bob").status is AccountStatus.CLOSED


def test_system_accounts_cannot_be_frozen(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(1))

    with pytest.raises(InvalidRequestError):
        ledger.freeze(funding_account_id("EUR"))
