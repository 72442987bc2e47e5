"""Pending credits: in the payee's balance, not spendable, always taken back by compensation."""

from __future__ import annotations

import pytest

from sagas import EffectCompensatedError, InsufficientFundsError, InvalidRequestError
from sagas.ledger import HoldStatus, Ledger, clearing_account_id, pending_hold_key
from tests.ledger._money import eur

CLEARING = clearing_account_id("EUR")
CREDIT = "s:credit:action"
UNDO = "s:credit:compensation"
PENDING = pending_hold_key(CREDIT)


@pytest.fixture
def credited(ledger: Ledger) -> Ledger:
    """bob holds 20.00 of his own; saga s credits him 245.05 pending from clearing."""
    ledger.open_account("alice", "EUR", opening_balance=eur(100_000))
    ledger.open_account("bob", "EUR", opening_balance=eur(2_000))
    ledger.open_account("shop", "EUR")
    ledger.capture_hold(
        "s:capture:action",
        ledger.place_hold("s:reserve:action", "alice", eur(24_505), saga_id="s").hold_key,
        CLEARING,
        saga_id="s",
    )
    ledger.transfer(CREDIT, CLEARING, "bob", eur(24_505), saga_id="s", pending=True)
    return ledger


def state(ledger: Ledger) -> object:
    """Everything a refused call must leave as it was."""
    balances = [(a.account_id, a.balance, a.held) for a in ledger.accounts(include_system=True)]
    return balances, ledger.entries(), ledger.holds(), ledger.chain_head()


def test_a_pending_credit_raises_the_balance_but_not_what_can_be_spent(credited: Ledger) -> None:
    bob = credited.account("bob")

    assert (bob.balance, bob.held, bob.available) == (eur(26_505), eur(24_505), eur(2_000))
    [hold] = [h for h in credited.holds(saga_id="s") if h.hold_key == PENDING]
    assert (hold.account_id, hold.amount, hold.status) == ("bob", eur(24_505), HoldStatus.ACTIVE)
    assert pending_hold_key("k") == "k:pending"
    assert credited.check_invariants() == []


def test_the_payee_cannot_spend_pending_money_and_nothing_is_written(credited: Ledger) -> None:
    before = state(credited)

    with pytest.raises(InsufficientFundsError, match=r"20\.00 EUR available"):
        credited.transfer("bob-pays", "bob", "shop", eur(2_001), saga_id="bob-pays")
    with pytest.raises(InsufficientFundsError):
        credited.place_hold("bob-holds", "bob", eur(24_505), saga_id="bob-holds")

    assert state(credited) == before


def test_taking_back_a_pending_credit_succeeds_when_the_payee_spent_everything_else(
    credited: Ledger,
) -> None:
    credited.transfer("bob-pays", "bob", "shop", eur(2_000), saga_id="bob-pays")
    assert credited.account("bob").available == eur(0)

    reversal = credited.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING)

    assert reversal is not None
    bob = credited.account("bob")
    assert (bob.balance, bob.held, bob.available) == (eur(0), eur(0), eur(0))
    assert credited.account(CLEARING).balance == eur(24_505)
    [hold] = [h for h in credited.holds(saga_id="s") if h.hold_key == PENDING]
    assert hold.status is HoldStatus.POSTED
    assert credited.check_invariants() == []


def test_without_the_pending_hold_a_spent_credit_cannot_be_taken_back(ledger: Ledger) -> None:
    """The failure pending credits prevent: the payee spent a final credit before compensation."""
    ledger.open_account("alice", "EUR", opening_balance=eur(30_000))
    ledger.open_account("bob", "EUR")
    ledger.open_account("shop", "EUR")
    ledger.transfer(CREDIT, "alice", "bob", eur(24_505), saga_id="s")
    ledger.transfer("bob-pays", "bob", "shop", eur(24_505), saga_id="bob-pays")
    before = state(ledger)

    with pytest.raises(InsufficientFundsError):
        ledger.reverse(UNDO, CREDIT, saga_id="s")

    assert state(ledger) == before


def test_the_release_makes_the_money_available_to_spend(credited: Ledger) -> None:
    released = credited.void_hold(PENDING, saga_id="s")

    assert released.status is HoldStatus.VOIDED
    bob = credited.account("bob")
    assert (bob.balance, bob.held, bob.available) == (eur(26_505), eur(0), eur(26_505))
    credited.transfer("bob-pays", "bob", "shop", eur(26_505), saga_id="bob-pays")
    assert credited.account("shop").balance == eur(26_505)
    assert credited.check_invariants() == []


def test_once_released_a_reversal_takes_the_money_as_any_other(credited: Ledger) -> None:
    credited.void_hold(PENDING, saga_id="s")
    credited.transfer("bob-pays", "bob", "shop", eur(26_505), saga_id="bob-pays")
    before = state(credited)

    with pytest.raises(InsufficientFundsError):
        credited.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING)

    assert state(credited) == before


def test_each_call_replays_without_writing_twice(credited: Ledger) -> None:
    entry = credited.entry(CREDIT)
    again = credited.transfer(CREDIT, CLEARING, "bob", eur(24_505), saga_id="s", pending=True)
    assert again == entry
    assert credited.account("bob").held == eur(24_505)

    first = credited.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING)
    before = state(credited)
    assert credited.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING) == first
    with pytest.raises(EffectCompensatedError):
        credited.transfer(CREDIT, CLEARING, "bob", eur(24_505), saga_id="s", pending=True)
    assert credited.void_hold(PENDING, saga_id="s").status is HoldStatus.POSTED
    assert state(credited) == before
    assert credited.check_invariants() == []


def test_the_release_replays_and_leaves_the_money_available(credited: Ledger) -> None:
    first = credited.void_hold(PENDING, saga_id="s")
    before = state(credited)

    assert credited.void_hold(PENDING, saga_id="s") == first
    assert state(credited) == before
    assert credited.account("bob").available == eur(26_505)


def test_a_credit_compensated_before_it_arrived_is_never_written(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(30_000))
    ledger.open_account("bob", "EUR")

    assert ledger.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING) is None
    with pytest.raises(EffectCompensatedError):
        ledger.transfer(CREDIT, "alice", "bob", eur(24_505), saga_id="s", pending=True)

    assert ledger.account("bob").balance == eur(0)
    assert ledger.holds() == []
    assert ledger.check_invariants() == []


def test_a_key_used_by_a_final_transfer_is_not_replayed_as_pending(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(30_000))
    ledger.open_account("bob", "EUR")
    ledger.transfer(CREDIT, "alice", "bob", eur(100), saga_id="s")
    before = state(ledger)

    with pytest.raises(InvalidRequestError) as refused:
        ledger.transfer(CREDIT, "alice", "bob", eur(100), saga_id="s", pending=True)
    with pytest.raises(InvalidRequestError) as no_hold:
        ledger.reverse(UNDO, CREDIT, saga_id="s", consume_hold=PENDING)

    assert (refused.value.field, no_hold.value.field) == ("key", "consume_hold")
    assert state(ledger) == before


def test_a_pending_hold_is_consumed_only_by_its_own_saga(credited: Ledger) -> None:
    credited.transfer("t:credit:action", "alice", "bob", eur(100), saga_id="t")
    before = state(credited)

    with pytest.raises(InvalidRequestError, match="another saga"):
        credited.reverse(
            "t:credit:compensation", "t:credit:action", saga_id="t", consume_hold=PENDING
        )

    assert state(credited) == before
