"""An entry's proof is enough to check it without the database: its hash recomputes from the
content listed, its writer's signature verifies, and its seal hashes its place and entry."""

from __future__ import annotations

from sagas.audit import Keyring
from sagas.ledger import Ledger, entry_message, proof_hash, seal_hash
from tests.fixtures_audit import TEST_SIGNER
from tests.ledger._money import eur


def test_a_saga_s_entries_prove_themselves_once_sealed(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(100))
    ledger.open_account("bob", "EUR")
    original = ledger.transfer("s:move:action", "alice", "bob", eur(40), saga_id="s")
    ledger.reverse("s:move:compensation", "s:move:action", saga_id="s")
    unsealed = ledger.entry_proofs("s")
    ledger.seal()

    proofs = ledger.entry_proofs("s")

    assert [p.seal for p in unsealed] == [None, None]
    assert [(p.key, p.reverses_entry_id) for p in proofs] == [
        ("s:move:action", None),
        ("s:move:compensation", original.entry_id),
    ]
    assert [p.entry_hash for p in proofs] == [e.entry_hash for e in ledger.entries(saga_id="s")]
    keyring = Keyring.of([TEST_SIGNER.public])
    for proof in proofs:
        assert proof.writer_link is None
        assert proof_hash(proof) == proof.entry_hash
        assert proof.key_id is not None
        assert proof.signature is not None
        assert (
            keyring.problem(proof.key_id, proof.signature, entry_message(proof.entry_hash)) is None
        )
        assert proof.seal is not None
        assert proof.seal.chain_hash == seal_hash(
            proof.seal.sequence, proof.seal.prev_hash, proof.entry_hash
        )
    assert ledger.entry_key_ids() == [TEST_SIGNER.key_id]
