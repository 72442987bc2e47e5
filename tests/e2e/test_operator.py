"""Operators retry parked sagas from the CLI, alone; a resolution needs a proposal and an
approval by another operator. Each action is on the audit record."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas import ProposalStaleError, SagaStatus, SameOperatorError, parse_faults
from sagas.audit import AuditStore
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.testing import dev_identity, kit_operator
from sagas.worker import build_worker
from tests.e2e._fast import FastTransferWorkflow
from tests.e2e.conftest import fundsaga

pytestmark = pytest.mark.slow

PARKING_FAULTS = "settle=business;credit.compensation=transient"


@asynccontextmanager
async def worker(
    env: WorkflowEnvironment, queue: str, ledger: Ledger, store: AuditStore, faults: str
) -> AsyncIterator[Worker]:
    async with build_worker(
        env.client,
        queue,
        ledger,
        store,
        parse_faults(faults),
        workflows=[FastTransferWorkflow],
        operators=dev_identity().check(),
    ) as running:
        yield running


FAST = {"transfer": "FastTransferWorkflow"}


def fast_client(
    env: WorkflowEnvironment, queue: str, ledger: Ledger, operator: str | None = None
) -> FundsagaClient:
    return FundsagaClient(
        env.client,
        queue,
        ledger,
        workflow_types=FAST,
        operator=kit_operator(operator) if operator else None,
    )


def verified(recorded: Any) -> dict[str, Any]:
    """An action as its audit record holds it, once its verified identity is checked to be the
    operator it names, signed in to the kit's identity provider."""
    action = dict(recorded)
    identity = action.pop("identity")
    assert (identity["issuer"], identity["subject"]) == ("fundsaga-dev", action["operator"])
    return action


async def park_one(client: FundsagaClient) -> str:
    key = f"op-{uuid.uuid4().hex[:10]}"
    await client.start(
        "transfer",
        {
            "idempotency_key": key,
            "source_account": "alice",
            "destination_account": "bob",
            "amount": "30.00",
            "currency": "EUR",
        },
    )
    for _ in range(100):
        if (await client.saga("transfer", key).view()).status is SagaStatus.NEEDS_ATTENTION:
            return key
        await asyncio.sleep(0.1)
    raise AssertionError("the saga never parked")


async def test_operator_retry_after_the_fix_completes_the_compensation(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "ana")
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        capsys.readouterr()
        assert await fundsaga("attention", "list", "--output", "json") == 0
        parked = json.loads(capsys.readouterr().out)
        assert await fundsaga("attention", "retry", key, "--type", "transfer") == 0
        still = capsys.readouterr().out
    async with worker(dev_env, cli_task_queue, funded, audit_store, ""):
        assert await fundsaga("attention", "retry", key, "-t", "transfer", "--note", "fixed") == 0
        done = capsys.readouterr().out
        outcome = await client.saga("transfer", key).outcome()

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
    assert verified(records[3].payload["operator_action"]) == {
        "operator": "ana",
        "note": "fixed",
        "decision": "retry",
    }
    assert audit_store.verify().ok


async def test_a_proposal_approved_by_another_operator_resolves(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        monkeypatch.setenv("FUNDSAGA_OPERATOR", "bo")
        capsys.readouterr()
        note = ("--note", "reversed at the bank", "--output", "json")
        assert await fundsaga("attention", "propose", key, "-t", "transfer", *note) == 0
        proposal = json.loads(capsys.readouterr().out)["proposal_id"]
        by_proposer = await fundsaga(*approving(key, proposal))
        own = capsys.readouterr().err
        monkeypatch.delenv("FUNDSAGA_OPERATOR")
        for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LOGNAME", "cy")  # the operating-system user
        unknown = await fundsaga(*approving(key, "p9"))
        stale = capsys.readouterr().err
        assert await fundsaga(*approving(key, proposal)) == 0
        approved = capsys.readouterr().out
        outcome = await client.saga("transfer", key).outcome()
        refused = await fundsaga("attention", "retry", key, "-t", "transfer")
        closed = capsys.readouterr().err

    assert (by_proposer, unknown, refused) == (1, 1, 1)
    assert f"SameOperatorError: bo proposed {proposal}" in own
    assert "ProposalStaleError: proposal 'p9' is not the saga's open proposal" in stale
    assert f"transfer-{key}: COMPENSATING after approve by cy" in approved
    assert f"NotParkedError: saga transfer-{key} is closed" in closed
    assert outcome.status is SagaStatus.RESOLVED
    assert [(c.step_name, c.result) for c in outcome.compensations] == [
        ("settle", "compensated"),
        ("credit", "failed"),
        ("credit", "resolved"),
        ("capture", "compensated"),
        ("reserve", "compensated"),
    ]
    records = audit_store.records(saga_id=outcome.saga_id)
    assert [r.kind for r in records] == [
        "needs_attention",
        "resolution_proposed",
        "resolution_approved",
        "terminal",
    ]
    assert verified(records[1].payload["proposal"]) == {
        "proposal_id": proposal,
        "operator": "bo",
        "note": "reversed at the bank",
        "at": {"parking": 1, "parked_on": "credit", "stack": ["credit", "capture", "reserve"]},
    }
    assert verified(records[2].payload["operator_action"]) == {
        "operator": "cy",
        "note": "checked",
        "decision": "approve",
        "proposal_id": proposal,
    }
    assert audit_store.verify().ok


async def test_an_approval_is_refused_once_the_saga_changed_or_a_newer_proposal_came(
    dev_env: WorkflowEnvironment, cli_task_queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    ana = fast_client(dev_env, cli_task_queue, funded, operator="ana")
    bo = fast_client(dev_env, cli_task_queue, funded, operator="bo")
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(ana)
        first = await ana.saga("transfer", key).propose("reversed at the bank")
        assert await bo.saga("transfer", key).retry() is SagaStatus.NEEDS_ATTENTION
        with pytest.raises(ProposalStaleError, match=f"changed since proposal {first}"):
            await bo.saga("transfer", key).approve(first)
        second = await ana.saga("transfer", key).propose("reversed at the bank")
        third = await ana.saga("transfer", key).propose("reversed, OPS-412")
        with pytest.raises(ProposalStaleError, match=f"proposal '{second}' is not"):
            await bo.saga("transfer", key).approve(second)
        with pytest.raises(SameOperatorError):
            await ana.saga("transfer", key).approve(third)
        status = await bo.saga("transfer", key).approve(third, "checked")
        outcome = await ana.saga("transfer", key).outcome()

    assert (first, second, third) == ("p1", "p2", "p3")
    assert status is SagaStatus.COMPENSATING
    assert outcome.status is SagaStatus.RESOLVED
    assert [(a.operator, a.decision, a.proposal_id) for a in outcome.operator_actions] == [
        ("ana", "propose", "p1"),
        ("bo", "retry", None),
        ("ana", "propose", "p2"),
        ("ana", "propose", "p3"),
        ("bo", "approve", "p3"),
    ]
    assert [r.kind for r in audit_store.records(saga_id=outcome.saga_id)] == [
        "needs_attention",
        "resolution_proposed",
        "operator_retry",
        "needs_attention",
        "resolution_proposed",
        "resolution_proposed",
        "resolution_approved",
        "terminal",
    ]


def approving(key: str, proposal: str) -> tuple[str, ...]:
    return (
        "attention",
        "approve",
        key,
        "-t",
        "transfer",
        "--proposal",
        proposal,
        "--note",
        "checked",
    )
