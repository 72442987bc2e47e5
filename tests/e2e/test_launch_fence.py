"""The launch fence: a saga id that took effects is never run again, whoever starts it.

`temporal workflow start` with no id policy admits a closed workflow's id, and after
`temporal workflow delete` (or retention) even RejectDuplicate would: the engine itself refuses.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio.service import RPCError, RPCStatusCode

from sagas import FailureReason, SagaCompensatedError, SagaRejectedError, SagaStatus, Snapshot
from sagas.client import FundsagaClient, saga_id
from sagas.ledger import AccountView, EntryView, HoldView, Ledger
from tests.e2e.conftest import TemporalCli
from tests.unchecked import unchecked

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Effects:
    """Everything a saga could have written: balances, entries, holds and its snapshots."""

    accounts: list[AccountView]
    entries: list[EntryView]
    holds: list[HoldView]
    snapshots: list[Snapshot]

    @classmethod
    def of(cls, ledger: Ledger, saga_id: str) -> Effects:
        return cls(ledger.accounts(), ledger.entries(), ledger.holds(), ledger.snapshots(saga_id))


def transfer(destination: str) -> dict[str, Any]:
    return {
        "idempotency_key": f"fence-{uuid.uuid4().hex[:12]}",
        "source_account": "alice",
        "destination_account": destination,
        "amount": "40.00",
        "currency": "EUR",
    }


async def relaunch(temporal: TemporalCli, client: FundsagaClient, request: dict[str, Any]) -> None:
    """As an operator would, by hand, with no id reuse policy."""
    started = await temporal(
        "workflow",
        "start",
        "--type",
        client.workflow_type("transfer"),
        "--task-queue",
        client.task_queue,
        "--workflow-id",
        saga_id("transfer", request["idempotency_key"]),
        "--input",
        json.dumps(request),
    )
    assert started.returncode == 0, started.stderr


async def assert_refused(client: FundsagaClient, key: str, first_run: str) -> None:
    with pytest.raises(SagaRejectedError) as rejected:
        await client.saga("transfer", key).wait()
    failure = rejected.value.outcome.failure
    assert failure is not None
    assert failure.reason is FailureReason.SAGA_ID_REUSED
    assert failure.claimed_by == first_run


async def first_run_of(client: FundsagaClient, key: str) -> str:
    return (await client.saga("transfer", key).workflow.describe()).run_id


async def completed_transfer(
    client: FundsagaClient, funded: Ledger
) -> tuple[dict[str, Any], str, Effects]:
    """A transfer run to COMPLETED: its request, its first run and what it wrote."""
    request = transfer("carol")
    key = request["idempotency_key"]
    await client.start("transfer", request)
    await client.saga("transfer", key).wait()
    return request, await first_run_of(client, key), Effects.of(funded, saga_id("transfer", key))


async def test_a_completed_saga_started_again_by_hand_is_rejected_and_writes_nothing(
    client: FundsagaClient, funded: Ledger, temporal: TemporalCli
) -> None:
    request, first_run, before = await completed_transfer(client, funded)
    key = request["idempotency_key"]

    await relaunch(temporal, client, request)
    await assert_refused(client, key, first_run)

    assert Effects.of(funded, saga_id("transfer", key)) == before
    view = await client.saga("transfer", key).view()
    assert view.status is SagaStatus.COMPLETED  # the run that took effects
    assert len(view.snapshots) == len(before.snapshots)


async def test_a_compensated_saga_started_again_by_hand_is_rejected_and_writes_nothing(
    client: FundsagaClient, funded: Ledger, temporal: TemporalCli
) -> None:
    funded.freeze("carol")
    request = transfer("carol")
    key = request["idempotency_key"]
    await unchecked(client).start("transfer", request)
    with pytest.raises(SagaCompensatedError):
        await client.saga("transfer", key).wait()
    first_run = await first_run_of(client, key)
    funded.unfreeze("carol")
    before = Effects.of(funded, saga_id("transfer", key))

    await relaunch(temporal, client, request)
    await assert_refused(client, key, first_run)

    assert Effects.of(funded, saga_id("transfer", key)) == before
    assert funded.net_effect(saga_id("transfer", key)) == {}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the dev server deletes slowly
async def test_a_saga_started_again_after_its_history_was_deleted_is_rejected(
    client: FundsagaClient, funded: Ledger, temporal: TemporalCli
) -> None:
    request, first_run, before = await completed_transfer(client, funded)
    key = request["idempotency_key"]

    deleted = await temporal(
        "workflow", "delete", "--yes", "--workflow-id", saga_id("transfer", key)
    )
    assert deleted.returncode == 0, deleted.stderr
    await until_gone(client, key)
    await relaunch(temporal, client, request)
    await assert_refused(client, key, first_run)

    assert Effects.of(funded, saga_id("transfer", key)) == before
    assert (
        await client.saga("transfer", key).view()
    ).status is SagaStatus.REJECTED  # nothing else is left


async def until_gone(client: FundsagaClient, key: str) -> None:
    for _ in range(600):
        try:
            await client.saga("transfer", key).workflow.describe()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                return
            raise
        await asyncio.sleep(0.1)
    raise AssertionError(f"{key} was not deleted")


async def test_a_temporal_reset_stays_in_the_chain_and_is_let_through(
    client: FundsagaClient, funded: Ledger, temporal: TemporalCli
) -> None:
    request, _, before = await completed_transfer(client, funded)
    key = request["idempotency_key"]

    reset = await temporal(
        "workflow",
        "reset",
        "--workflow-id",
        saga_id("transfer", key),
        "--type",
        "FirstWorkflowTask",
        "--reason",
        "replay the saga from the start",
    )
    assert reset.returncode == 0, reset.stderr
    outcome = await client.saga("transfer", key).wait()

    assert outcome.status is SagaStatus.COMPLETED
    assert funded.entries() == before.entries
    assert funded.holds() == before.holds
    assert funded.accounts() == before.accounts
