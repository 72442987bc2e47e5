"""A pivot step on the time-skipping server: backward recovery before it, forward recovery
from it on; cancels and the deadline after it are recorded and compensate nothing."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import (
    FailureReason,
    OperatorAction,
    SagaOutcome,
    SagaStatus,
    parse_faults,
    parse_money,
)
from sagas.app import FundsagaClient, SagaHandle, SagaRegistry
from sagas.audit import AuditStore
from sagas.engine import AuditKind
from sagas.ledger import Ledger, funding_account_id
from sagas.testing import (
    ClearableFaults,
    assert_eventually,
    directory_audit_store,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
)
from tests.pivot import PAYOUT

OPERATOR = OperatorAction(operator="ana", note="rail fixed")


@dataclass
class Rig:
    env: WorkflowEnvironment
    ledger: Ledger
    store: AuditStore
    faults: ClearableFaults
    client: FundsagaClient

    async def start(self, deadline_seconds: int = 3600) -> SagaHandle:
        key = f"p-{uuid.uuid4().hex[:10]}"
        request = {"idempotency_key": key, "account": "acc", "amount": "40.00"}
        await self.client.start("test-payout", request | {"deadline_seconds": deadline_seconds})
        return self.client.saga("test-payout", key)

    async def parked(self, saga: SagaHandle) -> None:
        async def is_parked() -> None:
            assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION
            await self.env.sleep(timedelta(seconds=30))

        await assert_eventually(is_parked, timeout=timedelta(seconds=30))

    def balance(self, account_id: str) -> str:
        return str(self.ledger.account(account_id).balance)

    def audit_kinds(self, saga: SagaHandle) -> list[str]:
        return [r.kind for r in self.store.records(saga_id=saga.saga_id)]


@pytest.fixture
async def rig(
    request: pytest.FixtureRequest, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[Rig]:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("acc", "EUR", opening_balance=parse_money("100.00", "EUR"))
    store = directory_audit_store(tmp_path / "audit")
    faults = ClearableFaults(parse_faults(getattr(request, "param", "")).rules)
    queue = new_task_queue()
    async with saga_worker(
        time_skipping_env, [PAYOUT], ledger, store, task_queue=queue, faults=faults
    ):
        client = FundsagaClient(
            time_skipping_env.client, queue, ledger, registry=SagaRegistry([PAYOUT])
        )
        yield Rig(time_skipping_env, ledger, store, faults, client)
    store.close_connections()
    ledger.close_connections()


def faults(spec: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("rig", [spec], indirect=True)


@faults("test-payout/debit=business")
async def test_a_failure_before_the_pivot_compensates_backwards(rig: Rig) -> None:
    outcome = await (await rig.start()).outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert [c.step_name for c in outcome.compensations] == ["debit"]
    assert outcome.pivot == "send"
    assert not outcome.pivot_passed
    assert rig.balance("acc") == "100.00 EUR"


@faults("test-payout/send=business")
async def test_a_business_error_at_the_pivot_parks_and_a_retry_goes_forward(rig: Rig) -> None:
    saga = await rig.start()
    await rig.parked(saga)
    parked = await saga.view()

    rig.faults.clear()
    status = await saga.retry_compensation(OPERATOR)
    outcome = await saga.outcome()

    assert parked.failure is not None
    assert (parked.failure.step_name, parked.failure.reason) == ("send", "business_error")
    assert parked.compensation_stack == []
    assert parked.pivot_passed
    assert [s.forward_only for s in parked.snapshots] == [False, True]
    assert status in (SagaStatus.RUNNING, SagaStatus.COMPLETED)
    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.compensations == []
    assert rig.balance("acc") == "60.00 EUR"
    assert rig.ledger.net_effect(saga.saga_id)[funding_account_id("EUR")] == parse_money(
        "40.00", "EUR"
    )
    assert rig.audit_kinds(saga) == [AuditKind.NEEDS_ATTENTION, AuditKind.OPERATOR_RETRY]


@faults("test-payout/confirm=transient")
async def test_a_step_after_the_pivot_retries_then_parks_and_resolve_ends_it(rig: Rig) -> None:
    saga = await rig.start()
    await rig.parked(saga)
    parked = await saga.view()

    status = await saga.resolve(OPERATOR)
    outcome = await saga.outcome()

    assert parked.failure is not None
    assert (parked.failure.step_name, parked.failure.reason) == ("confirm", "retries_exhausted")
    assert parked.failure.attempts == 3
    assert status is SagaStatus.RESOLVED
    assert outcome.status is SagaStatus.RESOLVED
    assert outcome.compensations == []
    assert rig.balance("acc") == "60.00 EUR"
    assert rig.audit_kinds(saga) == [
        AuditKind.NEEDS_ATTENTION,
        AuditKind.OPERATOR_RESOLVE,
        AuditKind.TERMINAL,
    ]


@faults("test-payout/confirm=transient*2")
async def test_a_cancel_after_the_pivot_is_recorded_and_compensates_nothing(rig: Rig) -> None:
    saga = await rig.start()

    async def past_pivot() -> None:
        assert (await saga.view()).current_step == "confirm"

    await assert_eventually(past_pivot)
    await saga.cancel()
    outcome: SagaOutcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.compensations == []
    assert [s.reason for s in outcome.ignored_stops] == [FailureReason.CANCELLED]
    assert rig.balance("acc") == "60.00 EUR"


@faults("test-payout/confirm=transient*2")
async def test_the_deadline_after_the_pivot_is_recorded_and_compensates_nothing(
    rig: Rig,
) -> None:
    saga = await rig.start(deadline_seconds=2)

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert [s.reason for s in outcome.ignored_stops] == [FailureReason.DEADLINE]
    assert rig.balance("acc") == "60.00 EUR"
