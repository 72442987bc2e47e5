"""After an outage, operators act on many parked sagas at once: a filter (type, parked-on step,
error type, parked window) selects them, a dry run lists them and changes nothing, and each saga
retried, proposed or approved verifies the operator and audits the action itself. A saga that
refuses does not stop the others; a token the worker does not trust is refused by every saga."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas import SagaStatus, parse_faults
from sagas.audit import AuditStore
from sagas.client import ActionResult, DevIdentityProvider, FundsagaClient, ParkedFilter
from sagas.engine import OperatorAct, OperatorBinding
from sagas.ledger import Ledger
from sagas.registry import load_registry
from sagas.testing import assert_eventually, dev_identity, kit_operator
from sagas.worker import build_worker
from tests.e2e._fast import FastTransferWorkflow
from tests.e2e.conftest import fundsaga
from tests.e2e.test_operator import FAST, verified
from tests.escrow.workflows import EscrowWorkflow
from tests.fixtures_temporal import new_task_queue

PARKING = (
    "transfer/settle=business;"
    "transfer/credit.compensation=business(AccountClosedError)@bob;"
    "transfer/capture.compensation=business@carol;"
    "escrow/release=business;escrow/hold.compensation=business"
)
"""Transfers to bob park on credit (AccountClosedError), to carol on capture, escrows on hold
(both AccountFrozenError, the default business fault)."""
REGISTRY = load_registry(["tests.escrow"])
PARKING_WAIT = timedelta(seconds=60)
"""How long five sagas may take to park and be listed, on a machine loaded by other tests."""


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
        registry=REGISTRY,
        workflows=[FastTransferWorkflow, EscrowWorkflow],
        operators=dev_identity().check(),
    ) as running:
        yield running


def operator_client(
    env: WorkflowEnvironment, queue: str, ledger: Ledger, operator: str
) -> FundsagaClient:
    return FundsagaClient(
        env.client,
        queue,
        ledger,
        registry=REGISTRY,
        workflow_types=FAST,
        operator=kit_operator(operator),
    )


async def park(client: FundsagaClient) -> dict[str, str]:
    """Two transfers to bob, one to carol and two escrows, parked; saga id → what it is."""
    started: dict[str, str] = {}
    for to, name in (("bob", "credit"), ("bob", "credit"), ("carol", "capture")):
        key = f"bulk-{uuid.uuid4().hex[:10]}"
        request = {"source_account": "alice", "destination_account": to, "currency": "EUR"}
        await client.start("transfer", request | {"idempotency_key": key, "amount": "10.00"})
        started[f"transfer-{key}"] = f"transfer on {name}"
    for _ in range(2):
        key = f"bulk-{uuid.uuid4().hex[:10]}"
        request = {"payer": "alice", "payee": "bob", "currency": "EUR", "amount": "20.00"}
        await client.start("escrow", request | {"idempotency_key": key})
        started[f"escrow-{key}"] = "escrow on hold"

    async def all_listed_as_parked() -> None:
        parked = await client.bulk_actions().select(ParkedFilter())
        assert sorted(s.saga_id for s in parked) == sorted(started)

    await assert_eventually(all_listed_as_parked, timeout=PARKING_WAIT)
    return started


def of(parked: dict[str, str], what: str) -> list[str]:
    return sorted(saga_id for saga_id, kind in parked.items() if kind == what)


def kinds(store: AuditStore, saga_id: str) -> list[str]:
    return [record.kind for record in store.records(saga_id=saga_id)]


async def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    """The sagas a dry run lists, by id."""
    assert await fundsaga("attention", "bulk", *argv, "--dry-run", "--output", "json") == 0
    found: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return sorted(found, key=lambda saga: str(saga["saga_id"]))


@pytest.fixture
def cli_sees_escrows(cli_task_queue: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("FUNDSAGA_SAGA_MODULES", "tests.escrow")
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "ana")
    return cli_task_queue


async def test_a_dry_run_lists_the_matches_and_a_bulk_retry_retries_exactly_those(
    dev_env: WorkflowEnvironment,
    cli_sees_escrows: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    queue = cli_sees_escrows
    client = operator_client(dev_env, queue, funded, "ana")
    before = datetime.now(UTC) - timedelta(seconds=1)
    async with worker(dev_env, queue, funded, audit_store, PARKING):
        parked = await park(client)
        capsys.readouterr()
        to_bob = await listed(capsys, "retry", "--type", "transfer", "--step", "credit")
        frozen = await listed(capsys, "approve", "--error-type", "AccountFrozenError")
        earlier = await listed(
            capsys, "propose", "--note", "n", "--parked-before", before.isoformat()
        )
        since = await listed(capsys, "retry", "--parked-since", before.isoformat())
        trails = {saga_id: kinds(audit_store, saga_id) for saga_id in parked}

        first = sorted(parked)[0]
        retry_first = OperatorBinding(workflow_id=first, action=OperatorAct.RETRY)
        forged_token = DevIdentityProvider(tmp_path / "x").mint("ana", binding=retry_first)
        monkeypatch.setenv("FUNDSAGA_OPERATOR_TOKEN", forged_token)
        forged = await fundsaga("attention", "bulk", "retry", "--all", "--output", "json")
        refused = json.loads(capsys.readouterr().out)
        monkeypatch.delenv("FUNDSAGA_OPERATOR_TOKEN")
        after_forged = {saga_id: kinds(audit_store, saga_id) for saga_id in parked}

    async with worker(dev_env, queue, funded, audit_store, ""):
        retried = await fundsaga(
            "attention", "bulk", "retry", "-t", "escrow", "--step", "hold", "--note", "unfrozen"
        )
        said = capsys.readouterr().out
        escrows = [
            await client.saga("escrow", i.removeprefix("escrow-")).outcome()
            for i in of(parked, "escrow on hold")
        ]
        still = await client.bulk_actions().select(ParkedFilter())

    assert [s["saga_id"] for s in to_bob] == of(parked, "transfer on credit")
    assert {(s["parked_on"], s["error_type"]) for s in to_bob} == {("credit", "AccountClosedError")}
    assert [s["saga_id"] for s in frozen] == sorted(
        of(parked, "transfer on capture") + of(parked, "escrow on hold")
    )
    assert (earlier, [s["saga_id"] for s in since]) == ([], sorted(parked))
    assert set(map(tuple, trails.values())) == {("needs_attention",)}

    assert forged == 1
    assert sorted(r["saga_id"] for r in refused if r["result"] == "refused") == sorted(parked)
    details = {r["saga_id"]: r["detail"] for r in refused}
    assert details.pop(first).startswith("OperatorRefusedError: access token refused")
    assert all(  # bound to the first saga: the client does not even send it to the others
        d.startswith("OperatorRefusedError: FUNDSAGA_OPERATOR_TOKEN is not for this action")
        for d in details.values()
    )
    assert after_forged == trails

    assert retried == 0
    assert "retry by ana: 2 done, 0 refused" in said
    assert [o.status for o in escrows] == [SagaStatus.COMPENSATED] * 2
    for outcome in escrows:
        records = audit_store.records(saga_id=outcome.saga_id)
        assert [r.kind for r in records] == ["needs_attention", "operator_retry", "terminal"]
        assert verified(records[1].payload["operator_action"]) == {
            "operator": "ana",
            "note": "unfrozen",
            "decision": "retry",
        }
        assert funded.net_effect(outcome.saga_id) == {}
    assert sorted(s.saga_id for s in still) == sorted(
        of(parked, "transfer on credit") + of(parked, "transfer on capture")
    )
    assert audit_store.verify().ok


async def test_one_operator_proposes_in_bulk_and_another_approves_each_open_proposal(
    dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> None:
    queue = new_task_queue()
    ana = operator_client(dev_env, queue, funded, "ana")
    bo = operator_client(dev_env, queue, funded, "bo")
    transfers = ParkedFilter(saga_type="transfer")
    async with worker(dev_env, queue, funded, audit_store, PARKING):
        parked = await park(ana)
        proposed = await ana.bulk_actions().propose(
            await ana.bulk_actions().select(transfers), "reversed at the bank, OPS-9"
        )
        own = await ana.bulk_actions().approve(await ana.bulk_actions().select(transfers))
        everything = await bo.bulk_actions().select(ParkedFilter())
        approved = await bo.bulk_actions().approve(everything, "checked OPS-9")
        outcomes = [
            await ana.saga("transfer", i.removeprefix("transfer-")).outcome()
            for i in sorted(parked)
            if i.startswith("transfer-")
        ]

    assert {(r.result, r.detail) for r in proposed} == {(ActionResult.DONE, "p1")}
    assert len(proposed) == 3
    assert {r.result for r in own} == {ActionResult.REFUSED}
    assert all(r.detail.startswith("SameOperatorError: ana proposed p1") for r in own)
    by_saga = {r.saga.saga_id: r for r in approved}
    assert {i: (r.result, r.saga.proposed_by) for i, r in by_saga.items()} == {
        i: (ActionResult.DONE, "ana") if i.startswith("transfer-") else (ActionResult.REFUSED, None)
        for i in parked
    }
    assert {r.detail for r in approved if r.result is ActionResult.REFUSED} == {
        f"ProposalStaleError: saga {i} has no open proposal" for i in of(parked, "escrow on hold")
    }
    assert [o.status for o in outcomes] == [SagaStatus.RESOLVED] * 3
    for outcome in outcomes:
        records = audit_store.records(saga_id=outcome.saga_id)
        assert [r.kind for r in records] == [
            "needs_attention",
            "resolution_proposed",
            "resolution_approved",
            "terminal",
        ]
        assert verified(records[2].payload["operator_action"])["operator"] == "bo"
    assert audit_store.verify().ok
