from __future__ import annotations

import pytest

from sagas import (
    AccountClosedError,
    AccountFrozenError,
    CurrencyMismatchError,
    InsufficientFundsError,
    InvalidRequestError,
    UnknownAccountError,
)
from sagas.ledger import EntryKind, HoldStatus, Ledger, PostingView, clearing_account_id
from tests.ledger._money import eur, usd

CLEARING = clearing_account_id("EUR")


@pytest.fixture
def funded(ledger: Ledger) -> Ledger:
    ledger.open_account("alice", "EUR", opening_balance=eur(10_000))
    ledger.open_account("bob", "EUR", opening_balance=eur(500))
    return ledger


def balances(ledger: Ledger) -> dict[str, int]:
    return {a.account_id: a.balance.minor for a in ledger.accounts(include_system=True)}


def test_hold_capture_transfer_and_reversals_restore_balances_exactly(funded: Ledger) -> None:
    before = balances(funded)

    hold = funded.place_hold("s1:reserve", "alice", eur(2_500), saga_id="s1")
    assert funded.account("alice").available == eur(7_500)
    assert funded.check_invariants() == []
    capture = funded.capture_hold("s1:capture", "s1:reserve", CLEARING, saga_id="s1")
    assert capture.postings == (
        PostingView("alice", eur(-2_500)),
        PostingView(CLEARING, eur(2_500)),
    )
    assert funded.check_invariants() == []
    credit = funded.transfer("s1:credit", CLEARING, "bob", eur(2_500), saga_id="s1")
    assert funded.account("bob").balance == eur(3_000)
    assert funded.check_invariants() == []
    assert funded.net_effect("s1") == {"alice": eur(-2_500), "bob": eur(2_500)}

    compensate_credit = funded.reverse("s1:credit:undo", "s1:credit", saga_id="s1")
    assert funded.check_invariants() == []
    compensate_capture = funded.reverse("s1:capture:undo", "s1:capture", saga_id="s1")
    after_void = funded.void_hold("s1:reserve", saga_id="s1")

    assert balances(funded) == {**before, CLEARING: 0}
    assert funded.account("alice").held == eur(0)
    assert funded.net_effect("s1") == {}
    assert funded.check_invariants() == []
    assert hold.status is HoldStatus.ACTIVE
    assert after_void.status is HoldStatus.POSTED
    assert compensate_credit is not None
    assert compensate_credit.reverses_entry_id == credit.entry_id
    assert compensate_capture is not None
    assert compensate_capture.reverses_entry_id == capture.entry_id
    assert [e.kind for e in funded.entries(saga_id="s1")] == [
        EntryKind.CAPTURE,
        EntryKind.TRANSFER,
        EntryKind.REVERSAL,
        EntryKind.REVERSAL,
    ]


def test_void_releases_the_hold_and_capture_then_refuses(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(1_000), saga_id="s")

    voided = funded.void_hold("h", saga_id="s")

    assert voided.status is HoldStatus.VOIDED
    assert voided.closed_at is not None
    assert funded.account("alice").available == eur(10_000)
    with pytest.raises(InvalidRequestError) as raised:
        funded.capture_hold("c", "h", CLEARING, saga_id="s")
    assert raised.value.field == "hold_key"
    with pytest.raises(InvalidRequestError):
        funded.capture_hold("c", "no-such-hold", CLEARING, saga_id="s")
    assert funded.check_invariants() == []


def test_a_hold_posts_exactly_once(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(100), saga_id="s")
    funded.capture_hold("c1", "h", "bob", saga_id="s")

    with pytest.raises(InvalidRequestError):
        funded.capture_hold("c2", "h", "bob", saga_id="s")
    assert funded.account("bob").balance == eur(600)


def test_unknown_accounts_are_refused(funded: Ledger) -> None:
    with pytest.raises(UnknownAccountError):
        funded.place_hold("h", "nobody", eur(1), saga_id="s")
    with pytest.raises(UnknownAccountError):
        funded.transfer("t", "alice", "nobody", eur(1), saga_id="s")
    with pytest.raises(UnknownAccountError):
        funded.transfer("t", "@elsewhere:EUR", "alice", eur(1), saga_id="s")
    funded.place_hold("h", "alice", eur(1), saga_id="s")
    with pytest.raises(UnknownAccountError):
        funded.capture_hold("c", "h", "nobody", saga_id="s")
    assert funded.entries(saga_id="s") == []


def test_frozen_and_closed_accounts_take_no_new_movements(funded: Ledger) -> None:
    funded.freeze("bob")
    funded.open_account("carol", "EUR")
    funded.close_account("carol")

    with pytest.raises(AccountFrozenError):
        funded.place_hold("h1", "bob", eur(1), saga_id="s")
    with pytest.raises(AccountFrozenError):
        funded.transfer("t1", "alice", "bob", eur(1), saga_id="s")
    with pytest.raises(AccountFrozenError):
        funded.transfer("t2", "bob", "alice", eur(1), saga_id="s")
    with pytest.raises(AccountClosedError):
        funded.transfer("t3", "alice", "carol", eur(1), saga_id="s")
    with pytest.raises(AccountClosedError):
        funded.place_hold("h2", "carol", eur(1), saga_id="s")
    funded.place_hold("h3", "alice", eur(1), saga_id="s")
    with pytest.raises(AccountFrozenError):
        funded.capture_hold("c", "h3", "bob", saga_id="s")
    assert funded.entries(saga_id="s") == []


def test_compensations_ignore_account_status(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(100), saga_id="s")
    funded.transfer("t", "alice", "bob", eur(200), saga_id="s")
    funded.freeze("alice")
    funded.freeze("bob")

    assert funded.void_hold("h", saga_id="s").status is HoldStatus.VOIDED
    assert funded.reverse("t:undo", "t", saga_id="s") is not None
    assert funded.net_effect("s") == {}


def test_currency_mismatch_is_refused(funded: Ledger) -> None:
    funded.open_account("dollar", "USD", opening_balance=usd(1_000))

    with pytest.raises(CurrencyMismatchError):
        funded.place_hold("h", "alice", usd(1), saga_id="s")
    with pytest.raises(CurrencyMismatchError):
        funded.transfer("t", "alice", "dollar", eur(1), saga_id="s")
    funded.place_hold("h", "alice", eur(1), saga_id="s")
    with pytest.raises(CurrencyMismatchError):
        funded.capture_hold("c", "h", "dollar", saga_id="s")
    assert funded.check_invariants() == []


def test_a_hold_for_a_payee_needs_the_payee_to_exist_in_the_same_currency(
    funded: Ledger,
) -> None:
    funded.open_account("dollar", "USD")
    funded.freeze("bob")

    with pytest.raises(UnknownAccountError, match="nobody"):
        funded.place_hold("h1", "alice", eur(100), saga_id="s", payee="nobody")
    with pytest.raises(CurrencyMismatchError, match="dollar"):
        funded.place_hold("h2", "alice", eur(100), saga_id="s", payee="dollar")
    assert funded.holds(saga_id="s") == []
    assert funded.account("alice").held.minor == 0

    hold = funded.place_hold("h3", "alice", eur(100), saga_id="s", payee="bob")

    assert hold.amount == eur(100)  # a frozen payee is refused when it is paid, not here
    assert funded.place_hold("h3", "alice", eur(100), saga_id="s", payee="bob") == hold


def test_insufficient_funds_counts_held_money(funded: Ledger) -> None:
    funded.place_hold("h1", "bob", eur(400), saga_id="s")

    with pytest.raises(InsufficientFundsError):
        funded.place_hold("h2", "bob", eur(101), saga_id="s")
    with pytest.raises(InsufficientFundsError):
        funded.transfer("t1", "bob", "alice", eur(101), saga_id="s")
    funded.transfer("t2", "bob", "alice", eur(100), saga_id="s")
    assert funded.account("bob").available == eur(0)


def test_overdraft_allows_going_negative_down_to_the_limit_not_beyond(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100), overdraft=eur(50))
    ledger.open_account("bob", "EUR")

    ledger.transfer("t1", "alice", "bob", eur(150), saga_id="s")
    assert ledger.account("alice").balance == eur(-50)
    with pytest.raises(InsufficientFundsError):
        ledger.transfer("t2", "alice", "bob", eur(1), saga_id="s")
    with pytest.raises(InsufficientFundsError):
        ledger.transfer("t3", "bob", "alice", eur(151), saga_id="s")
    assert ledger.check_invariants() == []


def test_system_accounts_need_no_funds(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR")

    ledger.transfer("t", CLEARING, "alice", eur(70), saga_id="s")

    assert ledger.account(CLEARING).balance == eur(-70)
    assert ledger.check_invariants() == []


def test_a_reversal_never_overdraws(funded: Ledger) -> None:
    funded.transfer("t", "alice", "bob", eur(1_000), saga_id="s1")
    funded.transfer("spent", "bob", "alice", eur(1_200), saga_id="s2")

    with pytest.raises(InsufficientFundsError):
        funded.reverse("t:undo", "t", saga_id="s1")
    assert funded.entry("t:undo") is None
    assert funded.check_invariants() == []


@pytest.mark.parametrize("minor", [0, -5])
def test_amounts_must_be_positive(funded: Ledger, minor: int) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        funded.transfer("t", "alice", "bob", eur(minor), saga_id="s")
    assert raised.value.field == "amount"
    with pytest.raises(InvalidRequestError):
        funded.place_hold("h", "alice", eur(minor), saga_id="s")


def test_transfer_to_itself_is_refused(funded: Ledger) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        funded.transfer("t", "alice", "alice", eur(1), saga_id="s")
    assert raised.value.field == "to_account_id"
