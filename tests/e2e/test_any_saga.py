"""A saga type the engine has never seen, run through the registry and the one client.

Each end follows the status table: the workflow completes with the outcome, `wait()` returns it
only for COMPLETED and raises the typed error otherwise, and every other end is audited.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from sagas import (
    FailureReason,
    InvalidRequestError,
    RegistrationError,
    SagaCompensatedError,
    SagaRejectedError,
    SagaResolvedError,
    SagaStatus,
    SagaView,
    parse_faults,
)
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, SagaHandle
from sagas.engine import AuditKind
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry, load_registry
from sagas.testing import dev_identity, resolve_by_two
from sagas.worker import build_worker
from tests.e2e.conftest import TemporalCli, eur
from tests.escrow import ESCROW
from tests.fixtures_temporal import new_task_queue
from tests.unchecked import unchecked

PARKS = "hold.compensation=business"
"""Voiding the hold is refused: a compensating escrow parks in NEEDS_ATTENTION."""


@pytest.fixture
def accounts(ledger: Ledger) -> Ledger:
    ledger.open_account("payer", "EUR", opening_balance=eur("500.00"))
    ledger.open_account("payee", "EUR")
    return ledger


async def escrow_client(
    dev_env: WorkflowEnvironment, ledger: Ledger, store: AuditStore, faults: str = ""
) -> AsyncIterator[FundsagaClient]:
    registry = load_registry(["tests.escrow"])
    queue = new_task_queue()
    async with build_worker(
        dev_env.client,
        queue,
        ledger,
        store,
        parse_faults(faults),
        registry=registry,
        operators=dev_identity().check(),
    ):
        yield FundsagaClient(dev_env.client, queue, ledger, registry=registry)


@pytest.fixture
async def client(
    dev_env: WorkflowEnvironment, accounts: Ledger, audit_store: AuditStore
) -> AsyncIterator[FundsagaClient]:
    async for client in escrow_client(dev_env, accounts, audit_store):
        yield client


@pytest.fixture
async def parking_client(
    dev_env: WorkflowEnvironment, accounts: Ledger, audit_store: AuditStore
) -> AsyncIterator[FundsagaClient]:
    async for client in escrow_client(dev_env, accounts, audit_store, PARKS):
        yield client


def escrow(**changes: str) -> dict[str, str]:
    fields = {"payer": "payer", "payee": "payee", "currency": "EUR", "amount": "120.00"}
    return {"idempotency_key": f"esc-{uuid.uuid4().hex[:12]}", **fields, **changes}


def kinds(store: AuditStore, saga_id: str) -> list[str]:
    return [record.kind for record in store.records(saga_id=saga_id)]


async def closed_as(client: FundsagaClient, saga_id: str) -> WorkflowExecutionStatus | None:
    return (await client.temporal.get_workflow_handle(saga_id).describe()).status


async def test_completed_returns_the_outcome_and_moves_the_money(
    client: FundsagaClient, accounts: Ledger
) -> None:
    request = escrow()
    handle = await client.start("escrow", request)
    saga = client.saga("escrow", request["idempotency_key"])

    outcome = await saga.wait()

    assert handle.id == saga.saga_id == f"escrow-{request['idempotency_key']}"
    assert outcome.status is SagaStatus.COMPLETED
    assert await closed_as(client, saga.saga_id) is WorkflowExecutionStatus.COMPLETED
    assert accounts.account("payee").balance == eur("120.00")
    assert [s.step_name for s in (await saga.view()).snapshots] == ["hold", "release"]
    listed = await client.list_sagas("escrow", SagaStatus.COMPLETED)
    assert (saga.saga_id, "escrow", "COMPLETED") in listed


async def test_compensated_completes_the_workflow_and_wait_raises_with_the_outcome(
    client: FundsagaClient, accounts: Ledger, audit_store: AuditStore
) -> None:
    accounts.freeze("payee")
    request = escrow()
    await unchecked(client).start("escrow", request)
    saga = client.saga("escrow", request["idempotency_key"])

    with pytest.raises(SagaCompensatedError) as compensated:
        await saga.wait()

    outcome = compensated.value.outcome
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.reason) == (
        "release",
        FailureReason.BUSINESS_ERROR,
    )
    assert await closed_as(client, saga.saga_id) is WorkflowExecutionStatus.COMPLETED
    assert accounts.account("payer").balance == eur("500.00")
    assert accounts.account("payer").held == eur("0")
    assert kinds(audit_store, saga.saga_id) == [AuditKind.TERMINAL]


async def test_rejected_input_ends_rejected_with_the_field_and_is_audited(
    client: FundsagaClient, temporal: TemporalCli, accounts: Ledger, audit_store: AuditStore
) -> None:
    request = escrow(amount="0")
    with pytest.raises(InvalidRequestError) as refused_by_client:
        await client.start("escrow", request)
    started = await temporal(
        "workflow",
        "start",
        "--type",
        "EscrowWorkflow",
        "--task-queue",
        client.task_queue,
        "--workflow-id",
        f"escrow-{request['idempotency_key']}",
        "--input",
        json.dumps(request),
    )
    assert started.returncode == 0, started.stderr
    saga = client.saga("escrow", request["idempotency_key"])

    with pytest.raises(SagaRejectedError) as rejected:
        await saga.wait()

    failure = rejected.value.outcome.failure
    assert refused_by_client.value.field == "amount"
    assert failure is not None
    assert (failure.reason, failure.field) == (FailureReason.INVALID_INPUT, "amount")
    assert (await saga.view()).status is SagaStatus.REJECTED
    assert accounts.snapshots(saga.saga_id) == []
    assert kinds(audit_store, saga.saga_id) == [AuditKind.TERMINAL]
    corrected = await client.start("escrow", escrow(idempotency_key=request["idempotency_key"]))
    assert (await saga.wait()).status is SagaStatus.COMPLETED
    assert corrected.id == saga.saga_id


async def test_parked_waits_for_an_operator_and_resolved_ends_as_the_table_says(
    parking_client: FundsagaClient, accounts: Ledger, audit_store: AuditStore
) -> None:
    accounts.freeze("payee")
    request = escrow()
    await unchecked(parking_client).start("escrow", request)
    saga = parking_client.saga("escrow", request["idempotency_key"])
    parked = await until_parked(saga)

    assert parked.compensation_stack[-1].step_name == "hold"
    assert not await saga.is_closed()
    assert (saga.saga_id, "escrow", "NEEDS_ATTENTION") in await parking_client.list_sagas(
        status=SagaStatus.NEEDS_ATTENTION
    )
    status = await resolve_by_two(saga, "hold voided by hand", maker="ana", checker="bo")
    with pytest.raises(SagaResolvedError) as resolved:
        await saga.wait()

    assert status is SagaStatus.RESOLVED
    actions = resolved.value.outcome.operator_actions
    assert [(a.operator, a.decision) for a in actions] == [("ana", "propose"), ("bo", "approve")]
    assert kinds(audit_store, saga.saga_id) == [
        AuditKind.NEEDS_ATTENTION,
        AuditKind.RESOLUTION_PROPOSED,
        AuditKind.RESOLUTION_APPROVED,
        AuditKind.TERMINAL,
    ]


async def until_parked(saga: SagaHandle) -> SagaView:
    for _ in range(200):
        view = await saga.view()
        if view.status is SagaStatus.NEEDS_ATTENTION:
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"{saga.saga_id} never parked")


def test_a_worker_refuses_a_step_whose_activity_nothing_registers(
    dev_env: WorkflowEnvironment, accounts: Ledger, audit_store: AuditStore
) -> None:
    without_release = replace(ESCROW, activities=lambda context: ESCROW.activities(context)[:2])

    with pytest.raises(
        RegistrationError, match=re.escape("step 'release' names the activity 'escrow.release'")
    ):
        build_worker(
            dev_env.client,
            new_task_queue(),
            accounts,
            audit_store,
            registry=SagaRegistry([without_release]),
        )


def test_saga_modules_are_loaded_by_name_and_a_missing_one_is_named() -> None:
    assert load_registry(["tests.escrow"]).names() == [
        "eod-sweep",
        "escrow",
        "fee-collection",
        "fx-transfer",
        "payout",
        "payout-batch",
        "transfer",
    ]
    with pytest.raises(RegistrationError, match=re.escape("tests.nowhere")):
        load_registry(["tests.nowhere"])
    with pytest.raises(InvalidRequestError, match="unknown saga type 'wire-out'"):
        load_registry().get("wire-out")


def test_a_client_of_a_registry_without_the_transfer_starts_its_own_types(
    dev_env: WorkflowEnvironment,
) -> None:
    client = FundsagaClient(dev_env.client, "q", registry=SagaRegistry([ESCROW]))

    assert client.saga("escrow", "k").saga_id == "escrow-k"
    with pytest.raises(InvalidRequestError, match="unknown saga type 'transfer'"):
        client.saga("transfer", "k")
