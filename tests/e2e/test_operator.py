"""Operators retry or resolve parked sagas from the CLI; each action is on the audit record."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas import SagaStatus, parse_faults
from sagas.app import FundsagaClient, build_worker
from sagas.audit import AuditStore
from sagas.ledger import Ledger
from tests.e2e._fast import FastTransferWorkflow
from tests.e2e.conftest import fundsaga

PARKING_FAULTS = "settle=business;credit.compensation=transient"


@asynccontextmanager
async def worker(
    env: WorkflowEnvironment, queue: str, ledger: Ledger, store: AuditStore, faults: str
) -> AsyncIterator[Worker]:
    async with build_worker(
        env.client, queue, ledger, store, parse_faults(faults), workflows=[FastTransferWorkflow]
    ) as running:
        yield running


def fast_client(env: WorkflowEnvironment, queue: str, ledger: Ledger) -> FundsagaClient:
    return FundsagaClient(env.client, queue, ledger, workflow_type="FastTransferWorkflow")


async def park_one(client: FundsagaClient) -> str:
    key = f"op-{uuid.uuid4().hex[:10]}"
    await client.start_transfer(
        {
            "idempotency_key": key,
            "source_account": "alice",
            "destination_account": "bob",
            "amount": "30.00",
            "currency": "EUR",
        }
    )
    for _ in range(100):
        if (await client.view(key)).status is SagaStatus.NEEDS_ATTENTION:
            return key
        await asyncio.sleep(0.1)
    raise AssertionError("the saga never parked")


async def test_operator_retry_after_the_fix_completes_the_compensation(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        capsys.readouterr()
        assert await fundsaga("attention", "list", "--output", "json") == 0
        parked = json.loads(capsys.readouterr().out)
        assert (
            await fundsaga("attention", "retry", key, "--type", "transfer", "--operator", "ana")
            == 0
        )
        still = capsys.readouterr().out
    async with worker(dev_env, cli_task_queue, funded, audit_store, ""):
        assert (
            await fundsaga(
                "attention", "retry", key, "-t", "transfer", "--operator", "ana", "--note", "fixed"
            )
            == 0
        )
        done = capsys.readouterr().out
        outcome = await client.outcome(key)

    assert [p["key"] for p in parked] == [key]
    assert parked[0]["parked_on"] == "credit"
    assert "NEEDS_ATTENTION" in still
    assert f"transfer-{key}: COMPENSATING after retry by ana" in done
    assert outcome.status is SagaStatus.COMPENSATED
    assert funded.net_effect(outcome.saga_id) == {}
    records = audit_store.records(saga_id=outcome.saga_id)
    assert [r.kind for r in records] == [
        "needs_attention",
        "operator_retry",
        "needs_attention",
        "operator_retry",
        "terminal",
    ]
    assert records[3].payload["operator_action"] == {
        "operator": "ana",
        "note": "fixed",
        "decision": "retry",
    }
    assert audit_store.verify().ok


async def test_operator_resolve_ends_resolved_and_refuses_sagas_not_parked(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        assert (
            await fundsaga(
                "attention",
                "resolve",
                key,
                "--type",
                "transfer",
                "--operator",
                "bo",
                "--note",
                "reversed at the bank",
            )
            == 0
        )
        outcome = await client.outcome(key)
        capsys.readouterr()
        refused = await fundsaga("attention", "retry", key, "-t", "transfer", "--operator", "bo")
        error = capsys.readouterr().err

    assert outcome.status is SagaStatus.RESOLVED
    assert [(c.step_name, c.result) for c in outcome.compensations] == [
        ("settle", "compensated"),
        ("credit", "failed"),
        ("credit", "resolved_by_operator"),
        ("capture", "compensated"),
        ("reserve", "compensated"),
    ]
    kinds = [r.kind for r in audit_store.records(saga_id=outcome.saga_id)]
    assert kinds == ["needs_attention", "operator_resolve", "terminal"]
    resolve = audit_store.records(saga_id=outcome.saga_id)[1]
    assert resolve.payload["operator_action"] == {
        "operator": "bo",
        "note": "reversed at the bank",
        "decision": "resolve",
    }
    assert refused == 1
    assert f"NotParkedError: saga transfer-{key} is closed" in error
