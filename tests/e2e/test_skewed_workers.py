"""Two workers on one task queue of the dev server, one's clock an hour ahead and the other's
an hour behind, run FX transfers against one database: no valid quote is refused, and the audit
trail's and the journal's times run forward. On PostgreSQL no worker's clock stamps anything; on
SQLite, whose time is the host's and which refuses a time more than a minute from it, the two
workers are 20 s apart."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from temporalio.client import Client
from temporalio.runtime import Runtime, TelemetryConfig
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.audit import AuditStore, open_audit_store
from sagas.client import FundsagaClient
from sagas.engine import SagaOutcome
from sagas.fx import FX_TRANSFER
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry
from sagas.testing import new_task_queue, saga_worker
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.fx.scenario import FX_SCENARIO, fund, fx_request
from tooling.chaos import account_times_backwards

HOUR = timedelta(hours=1)
SQLITE_SKEW = timedelta(seconds=20)
VALID, TOO_LARGE = 6, 2
"""Transfers that complete, and transfers refused for want of funds (each audited)."""


@dataclass
class SkewedClock:
    """A worker host's clock, off by `skew`; counts how often it is read."""

    skew: timedelta
    reads: int = 0

    def __call__(self) -> datetime:
        self.reads += 1
        return datetime.now(UTC) + self.skew


@dataclass
class Host:
    clock: SkewedClock
    ledger: Ledger
    audit: AuditStore


async def own_process_client(env: WorkflowEnvironment) -> WorkflowEnvironment:
    """The same server through a runtime of its own, as a second worker process has it (the
    SDK keeps one worker per task queue in each runtime)."""
    client = await Client.connect(
        env.client.service_client.config.target_host,
        namespace=env.client.namespace,
        data_converter=env.client.data_converter,
        runtime=Runtime(telemetry=TelemetryConfig()),
    )
    return WorkflowEnvironment.from_client(client)


def host(database_url: str, skew: timedelta) -> Host:
    clock = SkewedClock(skew)
    ledger = Ledger.from_url(database_url, signer=TEST_SIGNER, clock=clock)
    return Host(clock, ledger, open_audit_store(f"db:{database_url}", TEST_KEYS, clock=clock))


@asynccontextmanager
async def two_skewed_workers(
    env: WorkflowEnvironment, database_url: str
) -> AsyncIterator[tuple[FundsagaClient, Host, Host]]:
    skew = SQLITE_SKEW if database_url.startswith("sqlite") else HOUR
    ahead, behind = host(database_url, skew), host(database_url, -skew)
    fund(ahead.ledger)
    ahead.clock.reads = 0
    saga_type, queue = FX_SCENARIO.saga_type, new_task_queue()
    try:
        async with (
            saga_worker(env, [saga_type], ahead.ledger, ahead.audit, task_queue=queue),
            saga_worker(
                await own_process_client(env),
                [saga_type],
                behind.ledger,
                behind.audit,
                task_queue=queue,
            ),
        ):
            client = FundsagaClient(
                env.client,
                queue,
                ahead.ledger,
                registry=SagaRegistry([saga_type]),
                audit_completed=True,
            )
            yield client, ahead, behind
    finally:
        for each in (ahead, behind):
            each.audit.close_connections()
            each.ledger.close_connections()


async def run_transfers(client: FundsagaClient) -> list[SagaOutcome]:
    amounts = ["10.00"] * VALID + ["5000.00"] * TOO_LARGE
    keys = [f"fx-{uuid.uuid4().hex[:8]}" for _ in amounts]
    for key, amount in zip(keys, amounts, strict=True):
        await client.start(FX_TRANSFER, fx_request(key, amount=amount))
    return list(await asyncio.gather(*(client.saga(FX_TRANSFER, k).outcome() for k in keys)))


async def test_workers_an_hour_apart_refuse_no_quote_and_stamp_in_order(
    dev_env: WorkflowEnvironment, database_url: str
) -> None:
    async with two_skewed_workers(dev_env, database_url) as (client, ahead, behind):
        outcomes = await run_transfers(client)

        ends = [(o.status, o.failure.error_type if o.failure else None) for o in outcomes]
        assert (
            ends
            == [(SagaStatus.COMPLETED, None)] * VALID
            + [(SagaStatus.COMPENSATED, "InsufficientFundsError")] * TOO_LARGE
        )
        records = ahead.audit.records()
        assert len(records) == VALID + TOO_LARGE
        assert [r.recorded_at for r in records] == sorted(r.recorded_at for r in records)
        assert account_times_backwards(ahead.ledger.entries()) == 0
        assert ahead.audit.verify().ok
        assert ahead.ledger.check_invariants() == []
    if database_url.startswith("sqlite"):
        assert ahead.clock.reads > 0  # each host stamped some rows
        assert behind.clock.reads > 0
    else:
        assert ahead.clock.reads == behind.clock.reads == 0  # the server stamped every row
