"""The launch fence in the ledger: the first run chain to begin a step owns the saga id."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sagas import SagaIdReusedError, SagaStatus, Snapshot
from sagas.engine import RunClaim
from sagas.ledger import Ledger
from tests.ledger._money import eur

SAGA = "transfer-k1"
FIRST = RunClaim(saga_id=SAGA, saga_type="transfer", run_chain="chain-first")
SECOND = FIRST.model_copy(update={"run_chain": "chain-second"})


def snapshot(step_index: int, data: dict[str, str]) -> Snapshot:
    return Snapshot(
        saga_id=SAGA,
        saga_type="transfer",
        step_index=step_index,
        step_name=f"step-{step_index}",
        status=SagaStatus.RUNNING,
        data=data,
        compensation_stack=[],
        recorded_at=datetime(2026, 11, 22, tzinfo=UTC),
    )


@pytest.fixture
def funded(ledger: Ledger) -> Ledger:
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))
    return ledger


def test_the_first_chain_claims_the_id_and_keeps_taking_steps(funded: Ledger) -> None:
    with funded.begin_step_in_effect(FIRST, snapshot(0, {"first": "yes"})):
        funded.place_hold(f"{SAGA}:reserve:action", "alice", eur(100), saga_id=SAGA)
    funded.begin_step(FIRST, snapshot(1, {"first": "yes"}))

    assert funded.claim_of(SAGA) == "chain-first"
    assert [s.step_index for s in funded.snapshots(SAGA)] == [0, 1]


def test_another_chain_writes_nothing_neither_effect_nor_snapshot(funded: Ledger) -> None:
    with funded.begin_step_in_effect(FIRST, snapshot(0, {"first": "yes"})):
        funded.place_hold(f"{SAGA}:reserve:action", "alice", eur(100), saga_id=SAGA)
    before = funded.snapshots(SAGA)

    with (
        pytest.raises(SagaIdReusedError) as refused,
        funded.begin_step_in_effect(SECOND, snapshot(0, {"second": "yes"})),
    ):
        funded.place_hold(f"{SAGA}:other:action", "alice", eur(5), saga_id=SAGA)
    with pytest.raises(SagaIdReusedError):
        funded.begin_step(SECOND, snapshot(1, {"second": "yes"}))

    assert refused.value.claimed_by == "chain-first"
    assert funded.snapshots(SAGA) == before
    assert [h.amount for h in funded.holds(saga_id=SAGA)] == [eur(100)]
    assert funded.account("alice").held == eur(100)
    assert funded.claim_of(SAGA) == "chain-first"


def test_a_compensation_of_another_chain_is_refused_too(funded: Ledger) -> None:
    funded.begin_step(FIRST, snapshot(0, {}))
    funded.place_hold(f"{SAGA}:reserve:action", "alice", eur(100), saga_id=SAGA)

    with pytest.raises(SagaIdReusedError), funded.begin_step_in_effect(SECOND, None):
        funded.void_hold(f"{SAGA}:reserve:action", saga_id=SAGA)

    assert funded.account("alice").held == eur(100)


def test_a_compensation_alone_claims_and_an_unknown_id_has_no_claim(funded: Ledger) -> None:
    fresh = RunClaim(saga_id="transfer-k2", saga_type="transfer", run_chain="chain-a")

    funded.begin_step(fresh, None)

    assert funded.claim_of("transfer-k2") == "chain-a"
    assert funded.claim_of("transfer-unknown") is None
