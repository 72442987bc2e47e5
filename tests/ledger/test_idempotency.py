from __future__ import annotations

import pytest

from sagas import EffectCompensatedError, InvalidRequestError
from sagas.ledger import EntryKind, HoldStatus, Ledger, clearing_account_id
from tests.ledger._money import eur

CLEARING = clearing_account_id("EUR")


@pytest.fixture
def funded(ledger: Ledger) -> Ledger:
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))
    ledger.open_account("bob", "EUR")
    return ledger


def test_a_retried_transfer_posts_once(funded: Ledger) -> None:
    first = funded.transfer("t", "alice", "bob", eur(300), saga_id="s")
    again = funded.transfer("t", "alice", "bob", eur(300), saga_id="s")

    assert again == first
    assert len(funded.entries(saga_id="s")) == 1
    assert funded.account("bob").balance == eur(300)


def test_a_retried_transfer_returns_its_entry_even_when_it_would_now_be_refused(
    funded: Ledger,
) -> None:
    first = funded.transfer("t", "alice", "bob", eur(1_000), saga_id="s")
    funded.freeze("bob")

    assert funded.transfer("t", "alice", "bob", eur(1_000), saga_id="s") == first


def test_a_key_reused_for_a_different_movement_is_refused(funded: Ledger) -> None:
    funded.transfer("t", "alice", "bob", eur(300), saga_id="s")

    with pytest.raises(InvalidRequestError) as raised:
        funded.transfer("t", "alice", "bob", eur(301), saga_id="s")
    assert raised.value.field == "key"
    funded.place_hold("h", "alice", eur(5), saga_id="s")
    with pytest.raises(InvalidRequestError):
        funded.place_hold("h", "alice", eur(6), saga_id="s")


def test_a_retried_hold_reserves_once(funded: Ledger) -> None:
    first = funded.place_hold("h", "alice", eur(400), saga_id="s")
    again = funded.place_hold("h", "alice", eur(400), saga_id="s")

    assert again == first
    assert len(funded.holds()) == 1
    assert funded.account("alice").held == eur(400)


def test_a_retried_capture_posts_once(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(400), saga_id="s")
    first = funded.capture_hold("c", "h", CLEARING, saga_id="s")
    again = funded.capture_hold("c", "h", CLEARING, saga_id="s")

    assert again == first
    assert funded.account("alice").balance == eur(600)
    assert funded.account(CLEARING).balance == eur(400)


def test_a_retried_void_and_reversal_apply_once(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(100), saga_id="s")
    funded.transfer("t", "alice", "bob", eur(200), saga_id="s")

    assert funded.void_hold("h", saga_id="s") == funded.void_hold("h", saga_id="s")
    first = funded.reverse("t:undo", "t", saga_id="s")
    assert funded.reverse("t:undo", "t", saga_id="s") == first
    assert funded.account("alice").balance == eur(1_000)
    assert funded.account("alice").held == eur(0)
    assert len(funded.entries(saga_id="s")) == 2
    assert funded.check_invariants() == []


def test_void_before_place_leaves_a_tombstone_that_refuses_the_late_hold(
    funded: Ledger,
) -> None:
    tombstone = funded.void_hold("late", saga_id="s")
    with pytest.raises(EffectCompensatedError):
        funded.place_hold("late", "alice", eur(100), saga_id="s")

    assert tombstone.status is HoldStatus.VOIDED
    assert tombstone.is_tombstone
    assert funded.account("alice").held == eur(0)
    with pytest.raises(InvalidRequestError):
        funded.capture_hold("c", "late", CLEARING, saga_id="s")
    assert funded.check_invariants() == []


def test_a_tombstone_refuses_the_late_hold_even_for_an_unknown_account(funded: Ledger) -> None:
    funded.void_hold("late", saga_id="s")

    with pytest.raises(EffectCompensatedError):
        funded.place_hold("late", "nobody", eur(1), saga_id="s")


def test_a_hold_placed_again_after_its_void_is_refused_not_reported_as_placed(
    funded: Ledger,
) -> None:
    funded.place_hold("h", "alice", eur(100), saga_id="s")
    funded.void_hold("h", saga_id="s")

    with pytest.raises(EffectCompensatedError):
        funded.place_hold("h", "alice", eur(100), saga_id="s")
    assert funded.account("alice").held == eur(0)


def test_an_entry_written_again_after_its_reversal_is_refused(funded: Ledger) -> None:
    funded.transfer("t", "alice", "bob", eur(300), saga_id="s")
    funded.reverse("t:undo", "t", saga_id="s")

    with pytest.raises(EffectCompensatedError):
        funded.transfer("t", "alice", "bob", eur(300), saga_id="s")
    assert funded.account("alice").balance == eur(1_000)
    assert funded.net_effect("s") == {}


def test_reverse_before_original_marks_the_key_so_the_late_original_moves_nothing(
    funded: Ledger,
) -> None:
    assert funded.reverse("t:undo", "t", saga_id="s") is None
    assert funded.reverse("t:undo", "t", saga_id="s") is None

    with pytest.raises(EffectCompensatedError):
        funded.transfer("t", "alice", "bob", eur(300), saga_id="s")

    assert [e.kind for e in funded.entries(saga_id="s")] == [EntryKind.VOID_MARKER]
    assert funded.account("alice").balance == eur(1_000)
    assert funded.account("bob").balance == eur(0)
    assert funded.net_effect("s") == {}
    assert funded.check_invariants() == []


def test_reverse_before_capture_refuses_the_late_capture(funded: Ledger) -> None:
    funded.place_hold("h", "alice", eur(100), saga_id="s")
    assert funded.reverse("c:undo", "c", saga_id="s") is None

    with pytest.raises(EffectCompensatedError):
        funded.capture_hold("c", "h", CLEARING, saga_id="s")
    funded.void_hold("h", saga_id="s")

    assert funded.account("alice").balance == eur(1_000)
    assert funded.account("alice").held == eur(0)
    assert funded.check_invariants() == []
