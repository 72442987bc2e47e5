from __future__ import annotations

import dataclasses

import pytest

from sagas import InvalidRequestError
from sagas.ledger import EntryKind, Ledger
from tests.ledger._money import eur

PUBLIC_METHODS = {
    "account",
    "accounts",
    "adjust",
    "capture_hold",
    "chain_head",
    "claims_between",
    "check_invariants",
    "close_account",
    "close_connections",
    "declare",
    "engine",
    "entries",
    "entry",
    "entry_hash_at",
    "entry_key_ids",
    "entry_proofs",
    "find_account",
    "freeze",
    "from_url",
    "fund",
    "holds",
    "net_effect",
    "open_account",
    "place_hold",
    "post",
    "record_snapshot",
    "reverse",
    "seal",
    "settle",
    "signature_findings",
    "status_changes",
    "begin_step",
    "begin_step_in_effect",
    "claim_of",
    "snapshots",
    "unsealed_entries",
    "sweep",
    "transfer",
    "unfreeze",
    "void_hold",
}


def test_the_ledger_offers_no_way_to_edit_or_delete_entries() -> None:
    public = {name for name in dir(Ledger) if not name.startswith("_")} | {"engine"}

    assert public == PUBLIC_METHODS


def test_views_are_frozen(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(10))
    entry = ledger.entry("open:alice")
    assert entry is not None

    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.kind = EntryKind.REVERSAL  # type: ignore[misc]


def test_a_reversal_is_a_new_entry_referencing_the_original(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))
    ledger.open_account("bob", "EUR")
    original = ledger.transfer("t", "alice", "bob", eur(40), saga_id="s")

    reversal = ledger.reverse("t:undo", "t", saga_id="s")

    assert reversal is not None
    assert reversal.kind is EntryKind.REVERSAL
    assert reversal.reverses_entry_id == original.entry_id
    assert reversal.entry_id != original.entry_id
    assert [p.amount for p in reversal.postings] == [-p.amount for p in original.postings]
    assert ledger.entry("t") == original


def test_an_entry_cannot_be_reversed_twice(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))
    ledger.open_account("bob", "EUR")
    ledger.transfer("t", "alice", "bob", eur(40), saga_id="s")
    ledger.reverse("undo-1", "t", saga_id="s")

    with pytest.raises(InvalidRequestError) as raised:
        ledger.reverse("undo-2", "t", saga_id="s")

    assert raised.value.field == "original_key"
    assert ledger.entry("undo-2") is None
    assert ledger.account("bob").balance == eur(0)


def test_a_reversal_cannot_itself_be_reversed(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))
    ledger.reverse("undo", "open:alice", saga_id="s")

    with pytest.raises(InvalidRequestError):
        ledger.reverse("undo-undo", "undo", saga_id="s")
    assert ledger.account("alice").balance == eur(0)
