"""Idempotent launches under concurrency: one key is one saga, whoever asks and how often."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas import IdempotencyConflictError, SagaOutcome, SagaStatus
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, saga_id
from sagas.ledger import Ledger
from sagas.worker import build_worker
from tests.e2e.conftest import eur
from tests.fixtures_temporal import new_task_queue

pytestmark = pytest.mark.slow

CALLERS = 20
Handle = WorkflowHandle[Any, SagaOutcome]


def transfer(key: str, amount: str) -> dict[str, str]:
    return {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "amount": amount,
        "currency": "EUR",
    }


def new_key() -> str:
    return f"launch-{uuid.uuid4().hex[:12]}"


def balances(ledger: Ledger) -> dict[str, str]:
    return {a.account_id: a.balance.amount_text() for a in ledger.accounts()}


@pytest.fixture
def idle_client(dev_env: WorkflowEnvironment, funded: Ledger) -> FundsagaClient:
    """A client whose task queue has no worker yet: its sagas stay RUNNING, untouched."""
    return FundsagaClient(dev_env.client, new_task_queue(), funded)


@pytest.fixture
def worker_for_idle(
    dev_env: WorkflowEnvironment,
    funded: Ledger,
    audit_store: AuditStore,
    idle_client: FundsagaClient,
) -> Callable[[], Worker]:
    """Starts the worker of `idle_client`'s task queue when the test is ready."""
    return lambda: build_worker(dev_env.client, idle_client.task_queue, funded, audit_store)


def callers(client: FundsagaClient) -> list[FundsagaClient]:
    """Independent service instances, sharing one Temporal connection and the ledger."""
    return [
        FundsagaClient(client.temporal, client.task_queue, client.ledger) for _ in range(CALLERS)
    ]


async def run_ids(handles: list[Handle]) -> set[str]:
    """The run each handle leads to, as the server describes it."""
    return {(await handle.describe()).run_id for handle in handles}


async def runs_of(client: FundsagaClient, saga_id: str) -> int:
    """How many runs the server lists under `saga_id`, once visibility has caught up."""
    found = 0
    for _ in range(50):
        found = len([w async for w in client.temporal.list_workflows(f"WorkflowId = '{saga_id}'")])
        if found:
            break
        await asyncio.sleep(0.1)
    return found


async def test_twenty_concurrent_starts_with_one_key_give_every_caller_the_same_saga(
    client: FundsagaClient, funded: Ledger
) -> None:
    sent = transfer(new_key(), "100.00")

    handles = await asyncio.gather(*(caller.start("transfer", sent) for caller in callers(client)))
    outcomes = await asyncio.gather(*(handle.result() for handle in handles))

    the_id = saga_id("transfer", sent["idempotency_key"])
    assert {handle.id for handle in handles} == {the_id}
    (run_id,) = await run_ids(handles)
    assert {h.result_run_id for h in handles} - {None} <= {run_id}
    assert {outcome.status for outcome in outcomes} == {SagaStatus.COMPLETED}
    assert await runs_of(client, the_id) == 1
    assert funded.account("alice").balance == eur("900.00")
    assert funded.account("bob").balance == eur("150.00")
    assert [h.status.value for h in funded.holds(saga_id=the_id)] == ["posted", "voided"]
    assert [e.kind for e in funded.entries(saga_id=the_id)] == [
        "capture",
        "transfer",
        "settlement",
    ]
    assert funded.check_invariants() == []


async def test_concurrent_starts_with_one_key_and_two_amounts_launch_only_one_of_them(
    idle_client: FundsagaClient,
    funded: Ledger,
    worker_for_idle: Callable[[], Worker],
) -> None:
    key = new_key()
    amounts = ["100.00", "1.00"] * (CALLERS // 2)
    started = await asyncio.gather(
        *(
            caller.start("transfer", transfer(key, amount))
            for caller, amount in zip(callers(idle_client), amounts, strict=True)
        ),
        return_exceptions=True,
    )
    winners = {
        amount
        for amount, result in zip(amounts, started, strict=True)
        if not isinstance(result, BaseException)
    }
    refused = [result for result in started if isinstance(result, BaseException)]

    (winner,) = winners
    assert len(refused) == CALLERS // 2
    assert all(isinstance(error, IdempotencyConflictError) for error in refused)
    async with worker_for_idle():
        outcome = await idle_client.saga("transfer", key).outcome()
    assert outcome.status is SagaStatus.COMPLETED
    assert await runs_of(idle_client, outcome.saga_id) == 1
    assert funded.account("alice").balance == eur("1000.00") - eur(winner)
    assert funded.account("bob").balance == eur("50.00") + eur(winner)
    assert [h.status.value for h in funded.holds(saga_id=outcome.saga_id)] == ["posted", "voided"]


@pytest.mark.parametrize("first_saga", ["running", "closed"])
async def test_the_same_key_with_another_amount_is_a_conflict_with_no_effect(
    idle_client: FundsagaClient,
    funded: Ledger,
    worker_for_idle: Callable[[], Worker],
    first_saga: str,
) -> None:
    key = new_key()
    first = await idle_client.start("transfer", transfer(key, "100.00"))
    if first_saga == "closed":
        async with worker_for_idle():
            await idle_client.saga("transfer", key).outcome()
    before = balances(funded)
    entries_before = funded.entries()

    with pytest.raises(IdempotencyConflictError, match="different request"):
        await idle_client.start("transfer", transfer(key, "1.00"))

    expected_status = (
        WorkflowExecutionStatus.RUNNING
        if first_saga == "running"
        else WorkflowExecutionStatus.COMPLETED
    )
    assert (await first.describe()).status is expected_status
    assert await run_ids([first, idle_client.saga("transfer", key).workflow]) == {
        first.result_run_id
    }
    assert await runs_of(idle_client, first.id) == 1
    assert balances(funded) == before
    assert funded.entries() == entries_before
