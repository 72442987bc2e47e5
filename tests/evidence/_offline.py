"""A pack made without Temporal: a payout of a ledger and a trail of its own, parked after its
money left through the rail. Its figures come from the ledger and the trail alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sagas import Money
from sagas.audit import AnchoredAuditStore, AnchorStore, open_audit_store
from sagas.foundations import load_settings, upgrade_database
from sagas.ledger import Ledger, Leg, funding_account_id
from sagas.verify import (
    EvidencePack,
    PackRequest,
    build_evidence_pack,
    run_compensation_audit,
    sources_of,
    verify_ledger,
    verify_trail,
)
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

SAGA = "payout-rail"


@dataclass(frozen=True)
class ParkedPayout:
    ledger: Ledger
    store: AnchoredAuditStore
    rail_entry: int
    """Its entry with a posting on @funding."""
    other_entry: int

    def pack(self, memory: Path, rail_status: Mapping[int, str] | None = None) -> EvidencePack:
        audit = run_compensation_audit(self.ledger, self.store, None)
        request = PackRequest(
            statuses=["NEEDS_ATTENTION"], task_queue="q", sources=sources_of(load_settings())
        )
        return build_evidence_pack(
            audit,
            self.ledger,
            self.store,
            request,
            trail=verify_trail(self.store, None, memory),
            journal=verify_ledger(self.ledger, self.store.anchors, TEST_KEYS.keyring),
            runs={},
            rail_status=rail_status or {},
        )


def eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


def parked_payout(home: Path) -> ParkedPayout:
    url = f"sqlite:///{home / 'ledger.db'}"
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    store = AnchoredAuditStore(
        open_audit_store(f"dir:{home / 'audit'}", TEST_KEYS),
        AnchorStore(open_audit_store(f"dir:{home / 'anchors'}", TEST_KEYS)),
        100,
    )
    ledger.declare(entry_kinds=["payout"])
    ledger.open_account("alice", "EUR", opening_balance=eur(10_000))
    ledger.open_account("bob", "EUR")
    moved = ledger.transfer(f"{SAGA}:capture:action", "alice", "bob", eur(500), saga_id=SAGA)
    legs = [Leg(funding_account_id("EUR"), eur(500)), Leg("bob", eur(-500))]
    sent = ledger.post(f"{SAGA}:settle:action", legs, kind="payout", saga_id=SAGA)
    store.append(
        kind="needs_attention",
        saga_id=SAGA,
        dedupe_key=f"{SAGA}:parked",
        payload={"status": "NEEDS_ATTENTION", "saga_type": "payout", "failed_step": "settle"},
    )
    return ParkedPayout(ledger, store, sent.entry_id, moved.entry_id)
