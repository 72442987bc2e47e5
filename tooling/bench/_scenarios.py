"""The scenarios and how the driver runs one saga of each, from start to result."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from temporalio.client import Client

from sagas.client import FundsagaClient
from sagas.engine import SagaStatus
from sagas.transfer import TransferRequest
from tooling.baselines.workflows import BareLocalWorkflow, BareWorkflow, NaiveTransferWorkflow
from tooling.bench._load import Done, RunOne
from tooling.bench._setup import requests


class Scenario(StrEnum):
    BARE = "BARE"  # no-op activities, same count, retries and timeouts: the ceiling
    BARE_LOCAL = "BARE-LOCAL"  # the same no-ops as local activities: ENGINE-LOCAL's ceiling
    ENGINE = "ENGINE"  # the transfer saga's happy path, real ledger writes
    ENGINE_LOCAL = "ENGINE-LOCAL"  # the same with every step a local activity
    COMPENSATE = "ENGINE-COMPENSATE"  # the last step fails (business error), all compensate
    NAIVE = "NAIVE"  # the transfer as Temporal's samples write a saga
    DBOS = "DBOS"  # the same steps on DBOS Transact with SQLite
    NOSIGN = "ENGINE-NOSIGN"  # ENGINE on a ledger without a row signer
    NOANCHOR = "ENGINE-NOANCHOR"  # ENGINE on an audit store that is not anchored
    NOMETRICS = "ENGINE-NOMETRICS"  # ENGINE on a client whose runtime exports no metrics


INTERLEAVED = (
    Scenario.BARE,
    Scenario.BARE_LOCAL,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.NAIVE,
)
"""Scenarios that run in alternating blocks, so their ratios hold on a noisy machine."""
VARIANTS = (Scenario.NOSIGN, Scenario.NOANCHOR, Scenario.NOMETRICS)
"""ENGINE with one add-on off: interleaved with the others at the first concurrency only."""


@dataclass(frozen=True, kw_only=True)
class Queues:
    engine: str = field(default_factory=lambda: f"bench-engine-{uuid.uuid4().hex[:8]}")
    compensate: str = field(default_factory=lambda: f"bench-compensate-{uuid.uuid4().hex[:8]}")
    bench: str = field(default_factory=lambda: f"bench-bare-{uuid.uuid4().hex[:8]}")
    nosign: str = field(default_factory=lambda: f"bench-nosign-{uuid.uuid4().hex[:8]}")
    noanchor: str = field(default_factory=lambda: f"bench-noanchor-{uuid.uuid4().hex[:8]}")
    nometrics: str = field(default_factory=lambda: f"bench-nometrics-{uuid.uuid4().hex[:8]}")

    def of_variant(self, scenario: Scenario) -> str:
        return {
            Scenario.NOSIGN: self.nosign,
            Scenario.NOANCHOR: self.noanchor,
            Scenario.NOMETRICS: self.nometrics,
        }[scenario]


def runner(scenario: Scenario, temporal: Client, queues: Queues) -> RunOne:
    """A function that runs one new saga of `scenario` and says whether it ended as expected."""
    if scenario is Scenario.BARE:
        return _plain(temporal, queues.bench, "bare", "done")
    if scenario is Scenario.BARE_LOCAL:
        return _plain(temporal, queues.bench, "barelocal", "done")
    if scenario is Scenario.NAIVE:
        return _plain(temporal, queues.bench, "naive", "completed")
    if scenario is Scenario.ENGINE:
        return _saga(FundsagaClient(temporal, queues.engine), SagaStatus.COMPLETED, "engine")
    if scenario is Scenario.ENGINE_LOCAL:
        client = FundsagaClient(temporal, queues.engine, step_mode="local")
        return _saga(client, SagaStatus.COMPLETED, "local")
    if scenario in VARIANTS:
        client = FundsagaClient(temporal, queues.of_variant(scenario))
        return _saga(client, SagaStatus.COMPLETED, scenario.value.lower())
    if scenario is Scenario.COMPENSATE:
        return _saga(FundsagaClient(temporal, queues.compensate), SagaStatus.COMPENSATED, "comp")
    raise ValueError(f"{scenario} does not run on Temporal")


def _saga(client: FundsagaClient, expected: SagaStatus, prefix: str) -> RunOne:
    source = requests(prefix)

    async def run_one() -> Done:
        request = next(source)
        handle = await client.start("transfer", request)
        outcome = await client.saga("transfer", request.idempotency_key).outcome()
        return Done(workflow_id=handle.id, ok=outcome.status is expected)

    return run_one


_PLAIN_WORKFLOWS: dict[str, Callable[[Any, TransferRequest], Awaitable[str]]] = {
    "bare": BareWorkflow.run,
    "barelocal": BareLocalWorkflow.run,
    "naive": NaiveTransferWorkflow.run,
}


def _plain(temporal: Client, queue: str, prefix: str, expected: str) -> RunOne:
    source = requests(prefix)
    workflow = _PLAIN_WORKFLOWS[prefix]

    async def run_one() -> Done:
        request = next(source)
        handle = await temporal.start_workflow(
            workflow, request, id=f"{prefix}-{request.idempotency_key}", task_queue=queue
        )
        return Done(workflow_id=handle.id, ok=await handle.result() == expected)

    return run_one
