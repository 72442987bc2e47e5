"""The scenarios and how the driver runs one saga of each, from start to result."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import StrEnum

from temporalio.client import Client

from sagas.app import TRANSFER_WORKFLOW_BY_STEP_MODE, FundsagaClient
from sagas.engine import SagaStatus
from tooling.baselines.workflows import BareWorkflow, NaiveTransferWorkflow
from tooling.bench._load import Done, RunOne
from tooling.bench._setup import requests


class Scenario(StrEnum):
    BARE = "BARE"  # no-op activities, same count, retries and timeouts: the ceiling
    ENGINE = "ENGINE"  # the transfer saga's happy path, real ledger writes
    ENGINE_LOCAL = "ENGINE-LOCAL"  # the same with every step a local activity
    COMPENSATE = "ENGINE-COMPENSATE"  # the last step fails (business error), all compensate
    NAIVE = "NAIVE"  # the transfer as Temporal's samples write a saga
    DBOS = "DBOS"  # the same steps on DBOS Transact with SQLite


INTERLEAVED = (Scenario.BARE, Scenario.ENGINE, Scenario.ENGINE_LOCAL, Scenario.NAIVE)
"""Scenarios that run in alternating blocks, so their ratios hold on a noisy machine."""


@dataclass(frozen=True, kw_only=True)
class Queues:
    engine: str = field(default_factory=lambda: f"bench-engine-{uuid.uuid4().hex[:8]}")
    compensate: str = field(default_factory=lambda: f"bench-compensate-{uuid.uuid4().hex[:8]}")
    bench: str = field(default_factory=lambda: f"bench-bare-{uuid.uuid4().hex[:8]}")


def runner(scenario: Scenario, temporal: Client, queues: Queues) -> RunOne:
    """A function that runs one new saga of `scenario` and says whether it ended as expected."""
    if scenario is Scenario.BARE:
        return _plain(temporal, queues.bench, "bare", "done")
    if scenario is Scenario.NAIVE:
        return _plain(temporal, queues.bench, "naive", "completed")
    if scenario is Scenario.ENGINE:
        return _saga(FundsagaClient(temporal, queues.engine), SagaStatus.COMPLETED, "engine")
    if scenario is Scenario.ENGINE_LOCAL:
        local = TRANSFER_WORKFLOW_BY_STEP_MODE["local"]
        client = FundsagaClient(temporal, queues.engine, workflow_type=local)
        return _saga(client, SagaStatus.COMPLETED, "local")
    if scenario is Scenario.COMPENSATE:
        return _saga(FundsagaClient(temporal, queues.compensate), SagaStatus.COMPENSATED, "comp")
    raise ValueError(f"{scenario} does not run on Temporal")


def _saga(client: FundsagaClient, expected: SagaStatus, prefix: str) -> RunOne:
    source = requests(prefix)

    async def run_one() -> Done:
        request = next(source)
        handle = await client.start_transfer(request)
        outcome = await client.outcome(request.idempotency_key)
        return Done(workflow_id=handle.id, ok=outcome.status is expected)

    return run_one


def _plain(temporal: Client, queue: str, prefix: str, expected: str) -> RunOne:
    source = requests(prefix)
    workflow = BareWorkflow.run if prefix == "bare" else NaiveTransferWorkflow.run

    async def run_one() -> Done:
        request = next(source)
        handle = await temporal.start_workflow(
            workflow, request, id=f"{prefix}-{request.idempotency_key}", task_queue=queue
        )
        return Done(workflow_id=handle.id, ok=await handle.result() == expected)

    return run_one
