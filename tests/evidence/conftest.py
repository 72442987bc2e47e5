"""One real run for the evidence pack's tests, on the session's dev server.

On this deployment's task queue: a transfer that completes, one compensated for a business
error (its destination is frozen) and one compensated once its retries ran out; on another task
queue of the same deployment, a transfer REJECTED for its input, which moved no money. Apart,
a deployment that seals its payloads, with one compensated transfer. Both chains are anchored
after. The CLI sees each through the environment only.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from sagas import SagaStatus, parse_faults, parse_money
from sagas.audit import AuditStore, open_audit_store
from sagas.cli import app
from sagas.client import FundsagaClient, saga_id
from sagas.codec import PayloadKeys, converter_for
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.testing import dev_identity, freeze_by_operator, fund_by_two
from sagas.worker import build_worker
from tests.e2e._fast import FastTransferWorkflow
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.fixtures_temporal import new_task_queue

PAYLOAD_KEYS = PayloadKeys.generate("evidence-1")


@dataclass(frozen=True)
class Deployment:
    """A ledger, a signed audit trail, and the CLI's environment for them, in `home`."""

    home: Path
    env: dict[str, str]
    ledger: Ledger
    store: AuditStore
    task_queue: str


@dataclass(frozen=True)
class EvidenceRun(Deployment):
    other_queue: str
    frozen: str
    """Saga id: COMPENSATED, its credit refused (AccountFrozenError)."""
    exhausted: str
    """Saga id: COMPENSATED once its settle step's retries ran out."""
    rejected: str
    """Saga id: REJECTED for its input on the other task queue; it moved nothing."""


@dataclass(frozen=True)
class SealedRun(Deployment):
    sealed: str
    """Saga id: COMPENSATED on a deployment that seals audit payloads."""


def deployment(home: Path, address: str) -> Deployment:
    """Accounts alice, bob, carol and erin, empty (carol is to be frozen by an operator); the
    test suite's signing key."""
    url = f"sqlite:///{home / 'fundsaga.db'}"
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    for account_id in ("alice", "bob", "carol", "erin"):
        ledger.open_account(account_id, "EUR")
    TEST_SIGNER.write(home / "audit-signing.key")
    queue = new_task_queue()
    env = {
        "TEMPORAL_ADDRESS": address,
        "FUNDSAGA_TASK_QUEUE": queue,
        "FUNDSAGA_DATABASE_URL": url,
        "FUNDSAGA_AUDIT_STORE": f"dir:{home / 'audit'}",
        "FUNDSAGA_AUDIT_ANCHOR_STORE": f"dir:{home / 'anchors'}",
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(home / "audit-signing.key"),
    }
    store = open_audit_store(env["FUNDSAGA_AUDIT_STORE"], TEST_KEYS)
    return Deployment(home, env, ledger, store, queue)


def request(destination: str, amount: str, source: str = "alice") -> dict[str, str]:
    key = f"ev-{destination}-{uuid.uuid4().hex[:8]}"
    return {
        "idempotency_key": key,
        "source_account": source,
        "destination_account": destination,
        "amount": amount,
        "currency": "EUR",
    }


async def closed(client: FundsagaClient, asked: dict[str, str], status: SagaStatus) -> str:
    await client.start("transfer", asked)
    outcome = await client.saga("transfer", asked["idempotency_key"]).outcome()
    assert outcome.status is status, outcome
    return outcome.saga_id


async def refused_input(client: FundsagaClient) -> str:
    """A transfer from alice to alice, sent around the client's own check as a service in
    another language would: the saga refuses it before any step."""
    asked = request("alice", "7.00")
    key = asked["idempotency_key"]
    await client.temporal.start_workflow(
        client.workflow_type("transfer"),
        asked,
        id=saga_id("transfer", key),
        task_queue=client.task_queue,
    )
    outcome = await client.saga("transfer", key).outcome()
    assert outcome.status is SagaStatus.REJECTED, outcome
    return outcome.saga_id


@pytest.fixture(scope="module")
async def evidence_run(
    dev_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[EvidenceRun]:
    temporal = dev_env.client
    base = deployment(
        tmp_path_factory.mktemp("evidence"), temporal.service_client.config.target_host
    )
    ledger, store, queue, other = base.ledger, base.store, base.task_queue, new_task_queue()
    async with build_worker(temporal, queue, ledger, store, operators=dev_identity().check()):
        await fund_by_two(temporal, queue, "alice", parse_money("1000.00", "EUR"))
        await freeze_by_operator(temporal, queue, "carol")
    faults = parse_faults("settle=transient@erin")
    fast = [FastTransferWorkflow]
    async with build_worker(temporal, queue, ledger, store, faults, workflows=fast):
        # No ledger: the transfer to frozen carol is refused by its step, not before its start.
        client = FundsagaClient(
            temporal, queue, workflow_types={"transfer": "FastTransferWorkflow"}
        )
        await closed(client, request("bob", "10.00"), SagaStatus.COMPLETED)
        frozen = await closed(client, request("carol", "10.00"), SagaStatus.COMPENSATED)
        exhausted = await closed(client, request("erin", "10.00"), SagaStatus.COMPENSATED)
    async with build_worker(temporal, other, ledger, store):
        rejected = await refused_input(FundsagaClient(temporal, other))
    run = EvidenceRun(
        **vars(base), other_queue=other, frozen=frozen, exhausted=exhausted, rejected=rejected
    )
    anchored = await fundsaga(run, "audit", "anchor")
    assert anchored.exit_code == 0, anchored.stderr
    yield run
    store.close_connections()
    ledger.close_connections()


@pytest.fixture(scope="module")
async def sealed_run(
    dev_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[SealedRun]:
    """A deployment whose every payload is sealed, audit records' too, with one compensated
    transfer."""
    address = dev_env.client.service_client.config.target_host
    sealing = await Client.connect(
        address,
        namespace=dev_env.client.namespace,
        data_converter=converter_for(PayloadKeys.parse(PAYLOAD_KEYS)),
    )
    base = deployment(tmp_path_factory.mktemp("sealed"), address)
    ledger, store, queue = base.ledger, base.store, base.task_queue
    async with build_worker(sealing, queue, ledger, store, operators=dev_identity().check()):
        await fund_by_two(sealing, queue, "alice", parse_money("100.00", "EUR"))
        await freeze_by_operator(sealing, queue, "carol")
        client = FundsagaClient(sealing, queue)  # no ledger: carol's step refuses, not the client
        sealed = await closed(client, request("carol", "3.00"), SagaStatus.COMPENSATED)
    run = SealedRun(**vars(base), sealed=sealed)
    anchored = await fundsaga(run, "audit", "anchor", FUNDSAGA_PAYLOAD_KEYS=PAYLOAD_KEYS)
    assert anchored.exit_code == 0, anchored.stderr
    yield run
    store.close_connections()
    ledger.close_connections()


RUNNER = CliRunner()


def invoke(run: Deployment, argv: list[str], env: dict[str, str]) -> Result:
    with contextlib.chdir(run.home):
        return RUNNER.invoke(app, argv, env={**run.env, **env}, prog_name="fundsaga")


async def fundsaga(run: Deployment, *argv: str, **env: str) -> Result:
    """`fundsaga ARGV` in-process, off the loop that runs the workers."""
    return await asyncio.to_thread(invoke, run, list(argv), env)
