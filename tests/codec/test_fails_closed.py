"""With FUNDSAGA_PAYLOAD_KEYS set, the deployment fails closed, tried as an attacker would on a
real Temporal server: a client without keys is refused before anything starts, a plain-text
start sent around the client ends REJECTED and is counted, a plain-text update is refused, the
audit store keeps no plain-text copy of the request, and an auditor holding the audit public
keys only verifies the trail with Temporal as witness."""

from __future__ import annotations

import stat
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from google.protobuf.duration_pb2 import Duration
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults, parse_money
from sagas.audit import (
    AuditKeys,
    AuditStore,
    Keyring,
    SigningKey,
    open_audit_store,
    witness_findings,
    witnessed_records,
)
from sagas.client import FundsagaClient, saga_id
from sagas.codec import PayloadKeys, PlainTextRefusedError, RecordSealer, converter_for
from sagas.engine import RETRY_UPDATE, SEARCH_ATTRIBUTE_KEYS
from sagas.ledger import Ledger
from sagas.servers import free_port
from sagas.telemetry import prometheus_runtime
from sagas.testing import assert_eventually, new_task_queue, sqlite_ledger
from sagas.worker import announce_encryption, build_worker
from tests.observability.scraping import scrape

KEYS = PayloadKeys.parse(PayloadKeys.generate("fails-closed-1"))
AMOUNT = "4321.87"
NAME = "Salary Max Mustermann"
PARKS = "transfer/settle=business;transfer/settle.compensation=business"
SIGNER = SigningKey.generate()


@dataclass(frozen=True)
class Deployment:
    """An encrypting worker on its own namespace, and what an attacker can reach."""

    target: str
    namespace: str
    encrypted: Client
    task_queue: str
    ledger: Ledger
    store: AuditStore
    audit_dir: Path
    metrics: str
    source: str
    destination: str

    def request(self, key: str) -> dict[str, str]:
        return {
            "idempotency_key": key,
            "source_account": self.source,
            "destination_account": self.destination,
            "amount": AMOUNT,
            "currency": "EUR",
            "reference": NAME,
        }

    async def plain_client(self) -> Client:
        """A raw Temporal client with no codec: what a caller without the keys holds."""
        return await Client.connect(self.target, namespace=self.namespace)


async def fresh_namespace(env: WorkflowEnvironment) -> str:
    """A namespace of its own, so that its encryption marker touches no other test."""
    name = f"enc-{uuid.uuid4().hex[:10]}"
    await env.client.workflow_service.register_namespace(
        RegisterNamespaceRequest(
            namespace=name, workflow_execution_retention_period=Duration(seconds=86400)
        )
    )
    attributes = {
        k.name: IndexedValueType.ValueType(k.indexed_value_type) for k in SEARCH_ATTRIBUTE_KEYS
    }

    async def registered() -> None:
        await env.client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=name, search_attributes=attributes)
        )

    await assert_eventually(registered, timeout=timedelta(seconds=30))
    return name


@pytest.fixture
async def deployment(dev_env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[Deployment]:
    tag = uuid.uuid4().hex[:8]
    source, destination = f"payroll-{tag}", f"DE89370400440532{tag}"
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account(source, "EUR", opening_balance=parse_money("10000.00", "EUR"))
    ledger.open_account(destination, "EUR")
    target = dev_env.client.service_client.config.target_host
    namespace = await fresh_namespace(dev_env)
    metrics = f"127.0.0.1:{free_port()}"
    encrypted = await Client.connect(
        target,
        namespace=namespace,
        data_converter=converter_for(KEYS),
        runtime=prometheus_runtime(metrics),
    )
    queue = new_task_queue()
    audit_dir = tmp_path / "audit"
    store = open_audit_store(f"dir:{audit_dir}", AuditKeys.for_writer(SIGNER))
    async with build_worker(encrypted, queue, ledger, store, parse_faults("")):
        assert await announce_encryption(encrypted)
        yield Deployment(
            target,
            namespace,
            encrypted,
            queue,
            ledger,
            store,
            audit_dir,
            metrics,
            source,
            destination,
        )


async def test_a_client_without_keys_is_refused_and_starts_nothing(deployment: Deployment) -> None:
    plain = FundsagaClient(await deployment.plain_client(), deployment.task_queue)
    key = f"plain-{uuid.uuid4().hex[:8]}"

    with pytest.raises(PlainTextRefusedError, match="FUNDSAGA_PAYLOAD_KEYS"):
        await plain.start("transfer", deployment.request(key))

    with pytest.raises(RPCError) as missing:
        await deployment.encrypted.get_workflow_handle(saga_id("transfer", key)).describe()
    assert missing.value.status is RPCStatusCode.NOT_FOUND


async def test_a_plain_start_around_the_client_ends_rejected_and_is_counted(
    deployment: Deployment,
) -> None:
    key = f"raw-{uuid.uuid4().hex[:8]}"
    raw = await deployment.plain_client()
    await raw.start_workflow(
        "TransferWorkflow",
        deployment.request(key),
        id=saga_id("transfer", key),
        task_queue=deployment.task_queue,
    )

    fundsaga = FundsagaClient(deployment.encrypted, deployment.task_queue, deployment.ledger)
    outcome = await fundsaga.saga("transfer", key).outcome()

    assert outcome.status is SagaStatus.REJECTED
    assert outcome.failure is not None
    assert "plain text" in outcome.failure.message
    assert "FUNDSAGA_PAYLOAD_KEYS" in outcome.failure.message
    assert deployment.ledger.account(deployment.source).balance.minor == 1_000_000
    counted = await assert_eventually(
        lambda: scrape(deployment.metrics).total(
            "fundsaga_plain_text_refused_total", workflow_type="TransferWorkflow"
        )
    )
    assert counted == 1


async def test_a_plain_update_is_refused(
    dev_env: WorkflowEnvironment, deployment: Deployment
) -> None:
    queue = new_task_queue()
    async with build_worker(
        deployment.encrypted, queue, deployment.ledger, deployment.store, parse_faults(PARKS)
    ):
        fundsaga = FundsagaClient(deployment.encrypted, queue, deployment.ledger)
        key = f"parks-{uuid.uuid4().hex[:8]}"
        await fundsaga.start("transfer", deployment.request(key))
        saga = fundsaga.saga("transfer", key)

        async def parked() -> None:
            assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION

        await assert_eventually(parked, timeout=timedelta(seconds=30))
        raw = (await deployment.plain_client()).get_workflow_handle(saga_id("transfer", key))
        try:
            with pytest.raises(WorkflowUpdateFailedError):
                await raw.execute_update(RETRY_UPDATE, {"operator": "mallory"})
            status = (await saga.view()).status
        finally:
            await saga.workflow.terminate("test over")

    assert status is SagaStatus.NEEDS_ATTENTION
    counted = scrape(deployment.metrics).total(
        "fundsaga_plain_text_refused_total", payload_type="OperatorAction"
    )
    assert counted == 1


async def test_the_audit_store_keeps_no_plain_text_copy(deployment: Deployment) -> None:
    rejected = f"raw-{uuid.uuid4().hex[:8]}"
    raw = await deployment.plain_client()
    await raw.start_workflow(
        "TransferWorkflow",
        deployment.request(rejected),
        id=saga_id("transfer", rejected),
        task_queue=deployment.task_queue,
    )
    fundsaga = FundsagaClient(deployment.encrypted, deployment.task_queue)  # the step refuses
    await fundsaga.saga("transfer", rejected).outcome()
    deployment.ledger.freeze(deployment.destination)
    refused = f"frozen-{uuid.uuid4().hex[:8]}"
    await fundsaga.start("transfer", deployment.request(refused))
    outcome = await fundsaga.saga("transfer", refused).outcome()

    files = sorted(p for p in deployment.audit_dir.iterdir() if p.name.endswith(".json"))
    stored = b"".join(p.read_bytes() for p in files)
    records = deployment.store.records()
    assert KEYS is not None
    opened = RecordSealer(KEYS).open(records[-1].payload)

    assert outcome.status is SagaStatus.COMPENSATED
    assert len(files) == len(records) == 2
    for secret in (deployment.source, deployment.destination, AMOUNT, "432187", "Mustermann"):
        assert secret.encode() not in stored, secret
    assert not any(stat.S_IMODE(p.stat().st_mode) & 0o007 for p in [deployment.audit_dir, *files])
    assert isinstance(opened["input"], dict)
    assert (opened["input"]["source_account"], opened["input"]["reference"]) == (
        deployment.source,
        NAME,
    )


async def test_an_auditor_with_the_public_keys_only_verifies_with_temporal_as_witness(
    deployment: Deployment,
) -> None:
    deployment.ledger.freeze(deployment.destination)
    fundsaga = FundsagaClient(deployment.encrypted, deployment.task_queue)  # the step refuses
    key = f"audited-{uuid.uuid4().hex[:8]}"
    await fundsaga.start("transfer", deployment.request(key))
    await fundsaga.saga("transfer", key).outcome()
    auditor = await Client.connect(
        deployment.target, namespace=deployment.namespace, data_converter=converter_for(None)
    )
    verifier = open_audit_store(
        f"dir:{deployment.audit_dir}", AuditKeys(Keyring.of([SIGNER.public]))
    )

    witnessed = await witnessed_records(auditor, deployment.task_queue)

    assert [w.saga_id for w in witnessed] == [saga_id("transfer", key)]
    assert verifier.verify().ok
    assert witness_findings(verifier.records(), witnessed) == []
