"""A worker whose client serves metrics through the SDK's Prometheus exporter: scraped over
HTTP after one completed and one compensated transfer, the engine's counters say exactly that,
and the SDK's own metrics are there beside them."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from sagas import Money, SagaOutcome, SagaStatus, parse_faults, parse_money
from sagas.audit import AnchoredAuditStore, AnchorStore, AuditStore
from sagas.client import FundsagaClient, OperatorActions
from sagas.foundations import OperatorRefusedError
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from sagas.servers import free_port
from sagas.telemetry import prometheus_runtime
from sagas.testing import (
    assert_eventually,
    directory_audit_store,
    kit_operator,
    new_task_queue,
    sqlite_ledger,
)
from sagas.worker import build_worker
from tests.observability.scraping import Scrape, scrape
from workflows import AuditAnchorWorkflow

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
# carol's transfer times out once after its capture committed; dave's is refused at settle.
FAULTS = "capture=timeout*1@carol;settle=business@dave"


def eur(text: str) -> Money:
    return parse_money(text, "EUR")


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("alice", "EUR", opening_balance=eur("1000.00"))
    for name in ("carol", "dave"):
        ledger.open_account(name, "EUR")
    return ledger


@pytest.fixture
def audit_store(tmp_path: Path) -> AuditStore:
    anchors = AnchorStore(directory_audit_store(tmp_path / "anchors"))
    return AnchoredAuditStore(directory_audit_store(tmp_path / "audit"), anchors, every=1000)


@pytest.fixture
async def metered(
    dev_env: WorkflowEnvironment, ledger: Ledger, audit_store: AuditStore
) -> AsyncIterator[tuple[FundsagaClient, str]]:
    """A client whose worker's Temporal client serves metrics; its metrics address."""
    address = f"127.0.0.1:{free_port()}"
    temporal = await Client.connect(
        dev_env.client.service_client.config.target_host,
        namespace=dev_env.client.namespace,
        data_converter=pydantic_data_converter,
        runtime=prometheus_runtime(address),
    )
    task_queue = new_task_queue()
    async with build_worker(temporal, task_queue, ledger, audit_store, parse_faults(FAULTS)):
        yield FundsagaClient(temporal, task_queue, ledger), address


async def transfer(client: FundsagaClient, to: str) -> SagaOutcome:
    key = f"metrics-{uuid.uuid4().hex[:12]}"
    await client.start(
        "transfer",
        {
            "idempotency_key": key,
            "source_account": "alice",
            "destination_account": to,
            "amount": "10.00",
            "currency": "EUR",
        },
    )
    return await client.saga("transfer", key).outcome()


async def test_the_scrape_counts_what_the_sagas_did(
    metered: tuple[FundsagaClient, str],
) -> None:
    client, address = metered
    completed, compensated = await asyncio.gather(
        transfer(client, "carol"), transfer(client, "dave")
    )
    assert completed.status is SagaStatus.COMPLETED
    assert compensated.status is SagaStatus.COMPENSATED
    undone = len(compensated.compensations)

    def counted() -> Scrape:
        seen = scrape(address)
        assert seen.total("fundsaga_sagas_finished_total", saga_type="transfer") == 2
        return seen

    seen = await assert_eventually(counted)

    assert seen.total("fundsaga_sagas_started_total", saga_type="transfer") == 2
    for status in (SagaStatus.COMPLETED, SagaStatus.COMPENSATED):
        assert seen.total("fundsaga_sagas_finished_total", status=status.value) == 1
    assert seen.total("fundsaga_compensations_total", outcome="compensated") == undone > 0
    assert seen.total("fundsaga_compensation_duration_seconds_count", saga_type="transfer") == 1
    assert (
        seen.total(
            "fundsaga_step_retries_total",
            saga_type="transfer",
            step="capture",
            error_class="StepTimeoutError",
            retry_class="instant",
        )
        == 1
    )
    assert seen.total("fundsaga_step_attempts_total", step="settle", outcome="failed") == 1
    assert seen.total("fundsaga_audit_writes_total", kind="terminal", result="success") == 1
    assert seen.total("fundsaga_audit_write_duration_seconds_count", kind="terminal") == 1
    assert {"temporal_workflow_completed_total", "temporal_activity_execution_latency"} <= (
        seen.families
    )


async def test_every_engine_metric_scraped_is_documented_as_scraped_anchors_too(
    metered: tuple[FundsagaClient, str],
) -> None:
    client, address = metered
    await transfer(client, "dave")
    await client.temporal.execute_workflow(
        AuditAnchorWorkflow.run, id=f"anchor-{uuid.uuid4()}", task_queue=client.task_queue
    )
    documented = set(re.findall(r"^\| `(fundsaga_\w+)` \|", OPERATIONS.read_text(), re.MULTILINE))

    def scraped() -> set[str]:
        families = {name for name in scrape(address).families if name.startswith("fundsaga_")}
        assert "fundsaga_anchor_writes_total" in families
        return families

    families = await assert_eventually(scraped)
    assert families <= documented
    assert scrape(address).total("fundsaga_anchor_writes_total", result="success") == 1


async def test_a_refused_operator_action_is_counted_and_moves_no_money(
    metered: tuple[FundsagaClient, str], ledger: Ledger
) -> None:
    """The worker trusts no identity provider: a funding proposed by anyone is refused."""
    client, address = metered
    mallory = OperatorActions(client.temporal, client.task_queue, kit_operator("mallory"))
    before = ledger.account("carol").balance

    with pytest.raises(OperatorRefusedError, match="trusts no identity provider"):
        await mallory.propose_funding("carol", eur("1000000.00"), "free money")

    def counted() -> Scrape:
        seen = scrape(address)
        assert seen.total("fundsaga_operator_refusals_total", role="operator") == 1
        return seen

    await assert_eventually(counted)
    assert ledger.account("carol").balance == before


async def test_a_worker_exports_its_counters_at_zero_from_its_start(
    metered: tuple[FundsagaClient, str],
) -> None:
    """Every compensation of every registered type is there at 0 before any saga ran, so the
    first one that fails reads as an increase; the transfer's counts land on those series."""
    client, address = metered
    at_start = scrape(address)
    compensable = {
        (definition.saga_type, step.name)
        for definition in built_in_registry().definitions().values()
        for step in definition.steps
        if step.compensation is not None
    }
    failed = {
        (s.labels["saga_type"], s.labels["step"])
        for s in at_start.samples
        if s.name == "fundsaga_compensations_total" and s.labels["outcome"] == "failed"
    }
    assert failed == compensable
    assert at_start.total("fundsaga_compensations_total") == 0
    assert at_start.total("fundsaga_sagas_finished_total", status="COMPENSATED") == 0
    roles = {
        s.labels["role"] for s in at_start.samples if s.name == "fundsaga_operator_refusals_total"
    }
    assert roles == {"operator", "approver", "treasury"}

    assert (await transfer(client, "dave")).status is SagaStatus.COMPENSATED

    def counted() -> Scrape:
        seen = scrape(address)
        assert seen.total("fundsaga_sagas_finished_total", status="COMPENSATED") == 1
        return seen

    after = await assert_eventually(counted)
    assert series(after, "fundsaga_compensations_total") == series(
        at_start, "fundsaga_compensations_total"
    )
    assert series(after, "fundsaga_sagas_finished_total") == series(
        at_start, "fundsaga_sagas_finished_total"
    )
    assert after.total("fundsaga_compensations_total", saga_type="transfer") > 0


def series(seen: Scrape, name: str) -> set[tuple[tuple[str, str], ...]]:
    return {tuple(sorted(s.labels.items())) for s in seen.samples if s.name == name}
