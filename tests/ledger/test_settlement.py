from __future__ import annotations

import pytest

from sagas import InvalidRequestError
from sagas.ledger import EntryKind, Ledger, clearing_account_id
from tests.ledger._money import eur

CLEARING = clearing_account_id("EUR")


def test_settlement_waits_until_clearing_nets_to_zero_and_is_written_once(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))
    ledger.open_account("bob", "EUR")
    ledger.place_hold("s1:reserve", "alice", eur(400), saga_id="s1")
    ledger.capture_hold("s1:capture", "s1:reserve", CLEARING, saga_id="s1")

    with pytest.raises(InvalidRequestError, match="still in @clearing:EUR"):
        ledger.settle("s1:settle", CLEARING, saga_id="s1")
    assert ledger.entry("s1:settle") is None

    ledger.transfer("s1:credit", CLEARING, "bob", eur(400), saga_id="s1")
    first = ledger.settle("s1:settle", CLEARING, saga_id="s1")
    again = ledger.settle("s1:settle", CLEARING, saga_id="s1")

    assert first.kind == EntryKind.SETTLEMENT
    assert first.postings == ()
    assert again.entry_id == first.entry_id
    undo = ledger.reverse("s1:settle:undo", "s1:settle", saga_id="s1")
    assert undo is not None
    assert undo.reverses_entry_id == first.entry_id
    assert ledger.check_invariants() == []
