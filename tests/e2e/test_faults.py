"""Injected faults on a real worker: exhausted retries compensate; late timeouts are safe."""

from __future__ import annotations

import uuid

import pytest

from sagas import SagaStatus
from sagas.app import FundsagaClient
from sagas.ledger import Ledger
from tests.e2e.conftest import eur


def request() -> dict[str, str]:
    return {
        "idempotency_key": f"fault-{uuid.uuid4().hex[:12]}",
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "40.00",
        "currency": "EUR",
    }


@pytest.mark.parametrize("faulty_client", ["settle=transient"], indirect=True)
async def test_a_step_that_exhausts_its_retries_is_compensated(
    faulty_client: FundsagaClient, funded: Ledger
) -> None:
    sent = request()
    await faulty_client.start_transfer(sent)
    outcome = await faulty_client.outcome(sent["idempotency_key"])

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "retries_exhausted"
    assert outcome.failure.step_name == "settle"
    assert [c.step_name for c in outcome.compensations] == [
        "settle",
        "credit",
        "capture",
        "reserve",
    ]
    assert funded.account("alice").balance == eur("1000.00")
    assert funded.account("bob").balance == eur("50.00")
    assert funded.net_effect(outcome.saga_id) == {}
    assert funded.check_invariants() == []


@pytest.mark.parametrize("faulty_client", ["capture=timeout*1;credit=timeout*2"], indirect=True)
async def test_a_timeout_after_commit_is_retried_without_a_second_posting(
    faulty_client: FundsagaClient, funded: Ledger
) -> None:
    sent = request()
    await faulty_client.start_transfer(sent)
    outcome = await faulty_client.outcome(sent["idempotency_key"])
    entries = funded.entries(saga_id=outcome.saga_id)

    assert outcome.status is SagaStatus.COMPLETED
    assert [e.kind for e in entries] == ["capture", "transfer", "settlement"]
    assert funded.account("alice").balance == eur("960.00")
    assert funded.account("bob").balance == eur("90.00")
    assert [s.attempt for s in funded.snapshots(outcome.saga_id)] == [1, 2, 3, 1]
