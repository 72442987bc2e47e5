"""A saga type's own errors and scoped fault rules, on the time-skipping server and a real worker.

The escrow (tests/escrow) defines EscrowDisputedError (a BusinessError) and EscrowAgentBusyError
(a TransientError) in its own module; the engine classifies them by base class alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from temporalio import activity, workflow
from temporalio.common import RawValue
from temporalio.testing import WorkflowEnvironment

from sagas import (
    FailureReason,
    FundsagaError,
    SagaOutcome,
    SagaStatus,
    SagaWorkflow,
    parse_faults,
    parse_money,
)
from sagas.audit import AuditStore, open_audit_store
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry, SagaType, WorkerContext, load_registry
from sagas.worker import build_worker
from tests.escrow import ESCROW, EscrowAgentBusyError, EscrowDisputedError
from tests.escrow.activities import EscrowActivities
from tests.escrow.saga import ESCROW_SAGA, EscrowCall, EscrowState
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.fixtures_temporal import new_task_queue

TWIN_SAGA = replace(ESCROW_SAGA, saga_type="escrow-twin")
"""A second saga type with the escrow's steps (hold, release) and activities."""


@workflow.defn(name="EscrowTwinWorkflow")
class EscrowTwinWorkflow(SagaWorkflow):
    definition = TWIN_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)


TWIN = SagaType(
    definition=TWIN_SAGA, workflows={"activity": EscrowTwinWorkflow}, activities=lambda _: []
)


@pytest.fixture
def ledger(sqlite_url: str) -> Iterator[Ledger]:
    instance = Ledger.from_url(sqlite_url, signer=TEST_SIGNER)
    for account_id in ("payer", "alice"):
        instance.open_account(account_id, "EUR", opening_balance=parse_money("500.00", "EUR"))
    for account_id in ("payee", "bob"):
        instance.open_account(account_id, "EUR")
    yield instance
    instance.close_connections()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[AuditStore]:
    instance = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    yield instance
    instance.close_connections()


def escrow() -> dict[str, str]:
    fields = {"payer": "payer", "payee": "payee", "currency": "EUR", "amount": "120.00"}
    return {"idempotency_key": f"esc-{uuid.uuid4().hex[:12]}", **fields}


def transfer() -> dict[str, str]:
    fields = {"source_account": "alice", "destination_account": "bob", "currency": "EUR"}
    return {"idempotency_key": f"t-{uuid.uuid4().hex[:12]}", **fields, "amount": "10.00"}


async def run_sagas(
    env: WorkflowEnvironment,
    ledger: Ledger,
    store: AuditStore,
    registry: SagaRegistry,
    faults: str,
    sagas: list[tuple[str, dict[str, str]]],
) -> list[SagaOutcome]:
    """Run each (saga type, request) to its end on one worker with the fault plan `faults`."""
    queue = new_task_queue()
    async with build_worker(
        env.client, queue, ledger, store, parse_faults(faults), registry=registry
    ):
        client = FundsagaClient(env.client, queue, ledger, registry=registry)
        for saga_type, request in sagas:
            await client.start(saga_type, request)
        return [
            await client.saga(saga_type, request["idempotency_key"]).outcome()
            for saga_type, request in sagas
        ]


async def test_a_scoped_fault_raises_the_escrows_own_error_in_the_escrow_only(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, store: AuditStore
) -> None:
    registry = load_registry(["tests.escrow"])
    registry.register(TWIN)
    sagas = [("escrow", escrow()), ("escrow-twin", escrow()), ("transfer", transfer())]

    faulted, twin, other = await run_sagas(
        time_skipping_env,
        ledger,
        store,
        registry,
        "escrow/hold=business(EscrowDisputedError)",
        sagas,
    )

    assert faulted.status is SagaStatus.COMPENSATED
    assert faulted.failure is not None
    assert (faulted.failure.step_name, faulted.failure.reason) == (
        "hold",
        FailureReason.BUSINESS_ERROR,
    )
    assert (faulted.failure.error_type, faulted.failure.attempts) == ("EscrowDisputedError", 1)
    assert (twin.status, other.status) == (SagaStatus.COMPLETED, SagaStatus.COMPLETED)
    assert ledger.account("payer").balance == parse_money("380.00", "EUR")
    assert ledger.net_effect(faulted.saga_id) == {}


class UnguardedHold:
    """The escrow's hold as an activity that raises its saga's own error, with no step_guard."""

    def __init__(self, error: type[FundsagaError]) -> None:
        self.error = error
        self.attempts = 0

    @activity.defn(name="escrow.hold")
    def hold(self, call: EscrowCall) -> EscrowState:
        self.attempts += 1
        raise self.error(f"{call.saga_id}: raised by the activity itself")

    def saga_type(self) -> SagaType:
        def activities(context: WorkerContext) -> list[Callable[..., Any]]:
            guarded = EscrowActivities(context.ledger, context.faults).all()
            return [self.hold, *guarded[1:]]

        return replace(ESCROW, activities=activities)


@pytest.mark.parametrize(
    ("error", "attempts", "reason"),
    [
        (EscrowDisputedError, 1, FailureReason.BUSINESS_ERROR),
        (
            EscrowAgentBusyError,
            ESCROW_SAGA.step("hold").action_retry.maximum_attempts,
            FailureReason.RETRIES_EXHAUSTED,
        ),
    ],
    ids=["business", "transient"],
)
async def test_an_activity_without_step_guard_is_retried_by_its_errors_base_class(
    time_skipping_env: WorkflowEnvironment,
    ledger: Ledger,
    store: AuditStore,
    error: type[FundsagaError],
    attempts: int,
    reason: FailureReason,
) -> None:
    hold = UnguardedHold(error)

    (outcome,) = await run_sagas(
        time_skipping_env,
        ledger,
        store,
        SagaRegistry([hold.saga_type()]),
        "",
        [("escrow", escrow())],
    )

    assert hold.attempts == attempts
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.error_type, outcome.failure.reason) == (error.__name__, reason)
