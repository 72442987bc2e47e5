"""The saga runtime on the time-skipping server, with fake activities under the real names."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import (
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas import (
    VIEW_QUERY,
    OperatorAction,
    SagaOutcome,
    SagaStatus,
    SagaView,
)
from sagas.engine import SAGA_STATUS, OperatorAct, OperatorBinding
from sagas.testing import kit_token
from sagas.transfer import TransferRequest
from tests.fixtures_temporal import new_task_queue, worker_for, workflow_name
from tests.workflows._fakes import FakeSteps
from tests.workflows._probe import (
    CLASS_PROBES,
    PROBE_RETRY,
    PROBES,
    ProbeLocalStepsWorkflow,
    ProbeTransferWorkflow,
)
from workflows import TransferWorkflow

ALL_COMPENSATIONS = ["transfer.credit.undo", "transfer.capture.undo", "transfer.reserve.undo"]


def request(**overrides: Any) -> TransferRequest:
    fields: dict[str, Any] = {
        "idempotency_key": f"k-{uuid.uuid4().hex[:12]}",
        "source_account": "acc-a",
        "destination_account": "acc-b",
        "amount": "100.00",
        "currency": "EUR",
    }
    return TransferRequest.parse({**fields, **overrides})


class Saga:
    """One saga under test: its worker, fake steps and handle."""

    def __init__(self, env: WorkflowEnvironment, steps: FakeSteps, workflow: type) -> None:
        self.env = env
        self.steps = steps
        self.workflow = workflow
        self.task_queue = new_task_queue()

    def worker(self) -> Worker:
        return worker_for(
            self.env,
            workflows=[TransferWorkflow, *PROBES, *CLASS_PROBES],
            activities=self.steps.all(),
            task_queue=self.task_queue,
        )

    async def start(self, req: TransferRequest) -> WorkflowHandle[Any, Any]:
        return await self.env.client.start_workflow(
            workflow_name(self.workflow),
            req,
            id=f"transfer-{req.idempotency_key}",
            task_queue=self.task_queue,
        )


async def by(
    env: WorkflowEnvironment,
    handle: WorkflowHandle[Any, Any],
    act: OperatorAct,
    name: str,
    **fields: Any,
) -> OperatorAction:
    """An action by `name`, signed in to the kit's identity provider, which the worker trusts,
    with a token bound to `act` on the saga, issued at the test server's time."""
    proposal = fields.get("proposal_id", "") if act is OperatorAct.APPROVE else ""
    binding = OperatorBinding(workflow_id=handle.id, action=act, proposal=proposal)
    token = kit_token(name, binding, issued_at=await env.get_current_time())
    return OperatorAction(proof=token, **fields)


def verified_subject(recorded: Any) -> tuple[str, str]:
    """Who the saga verified an action was by, as its audit record holds it."""
    identity = recorded["identity"]
    return identity["issuer"], identity["subject"]


async def outcome_of(handle: WorkflowHandle[Any, Any]) -> SagaOutcome:
    return SagaOutcome.model_validate(await handle.result())


async def status_of(handle: WorkflowHandle[Any, Any]) -> SagaView:
    view: SagaView = await handle.query(VIEW_QUERY, result_type=SagaView)
    return view


async def wait_for_attempt(steps: FakeSteps, activity_type: str) -> None:
    for _ in range(200):
        if steps.of(activity_type):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{activity_type} never started")


async def test_happy_path_completes_with_one_snapshot_before_each_step(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    saga = Saga(time_skipping_env, FakeSteps(), TransferWorkflow)
    async with saga.worker():
        handle = await saga.start(request())
        outcome = await outcome_of(handle)
        view = await status_of(handle)

    assert outcome.status is SagaStatus.COMPLETED
    assert saga.steps.audit == []
    assert saga.steps.types() == [
        "transfer.reserve",
        "transfer.capture",
        "transfer.credit",
        "transfer.settle",
        "transfer.release",
    ]
    assert [s.step_name for s in view.snapshots] == [
        "reserve",
        "capture",
        "credit",
        "settle",
        "release",
    ]
    assert view.snapshots[0].data["hold_key"] is None
    assert view.snapshots[1].data["hold_key"] == "transfer.reserve"
    # `release` is the pivot: from it on nothing is compensated, so the stack is dropped.
    assert [len(s.compensation_stack) for s in view.snapshots] == [0, 1, 2, 3, 0]
    assert [s.forward_only for s in view.snapshots] == [False, False, False, False, True]
    description = await handle.describe()
    assert description.typed_search_attributes.get(SAGA_STATUS) == "COMPLETED"


async def test_transient_failure_backs_off_f_m_c_then_compensates_in_reverse(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps = FakeSteps(transient={"transfer.credit": lambda attempt: True})
    saga = Saga(time_skipping_env, steps, ProbeTransferWorkflow)
    async with saga.worker():
        outcome = await outcome_of(await saga.start(request()))

    credit = steps.of("transfer.credit")
    assert [a.attempt for a in credit] == list(range(1, 12))
    expected = [PROBE_RETRY.delay_before_retry(n).total_seconds() for n in range(1, 11)]
    assert expected[:5] == [10, 20, 40, 80, 160]
    assert steps.backed_off("transfer.credit", expected)
    assert steps.types()[-3:] == ALL_COMPENSATIONS
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "retries_exhausted"
    assert outcome.failure.step_name == "credit"


async def test_local_step_backoffs_are_durable_timers_f_m_c(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps = FakeSteps(transient={"transfer.credit": lambda attempt: True})
    saga = Saga(time_skipping_env, steps, ProbeLocalStepsWorkflow)
    async with saga.worker():
        handle = await saga.start(request())
        outcome = await outcome_of(handle)
        history = await handle.fetch_history()

    timers = [
        round(
            event.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta().total_seconds()
        )
        for event in history.events
        if event.HasField("timer_started_event_attributes")
    ]
    expected = [round(PROBE_RETRY.delay_before_retry(n).total_seconds()) for n in range(1, 11)]
    assert [a.attempt for a in steps.of("transfer.credit")] == list(range(1, 12))
    assert timers[1:] == expected  # the first timer is the saga's deadline
    assert steps.types()[-3:] == ALL_COMPENSATIONS
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "retries_exhausted"
    assert outcome.failure.attempts == 11


async def test_business_error_compensates_at_once_without_retrying(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps = FakeSteps(business={"transfer.capture"})
    saga = Saga(time_skipping_env, steps, TransferWorkflow)
    async with saga.worker():
        outcome = await outcome_of(await saga.start(request()))

    assert steps.types() == [
        "transfer.reserve",
        "transfer.capture",
        "transfer.capture.undo",
        "transfer.reserve.undo",
    ]
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "business_error"
    assert outcome.failure.error_type == "AccountFrozenError"
    (record,) = steps.audit
    assert (record.kind, record.dedupe_key) == ("terminal", f"{outcome.saga_id}:terminal")
    assert record.payload["status"] == "COMPENSATED"
    assert record.payload["failed_step"] == "capture"
    assert record.payload["error_class"] == "AccountFrozenError"
    compensations = record.payload["compensations"]
    assert isinstance(compensations, list)
    assert [c["step_name"] for c in compensations if isinstance(c, dict)] == ["capture", "reserve"]
    assert len(record.payload["snapshot_hashes"]) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize("probe", PROBES, ids=["activity-steps", "local-steps"])
async def test_cancellation_mid_saga_compensates_the_steps_taken(
    time_skipping_env: WorkflowEnvironment, probe: type
) -> None:
    # Cancelled while capture waits out a retry backoff: the Java test server cannot cancel a
    # running activity; the dev-server suite covers that case.
    steps = FakeSteps(transient={"transfer.capture": lambda attempt: True})
    saga = Saga(time_skipping_env, steps, probe)
    async with saga.worker():
        handle = await saga.start(request())
        await wait_for_attempt(steps, "transfer.capture")
        await handle.cancel()
        outcome = await outcome_of(handle)

    assert steps.types()[-2:] == ["transfer.capture.undo", "transfer.reserve.undo"]
    assert "transfer.credit" not in steps.types()
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "cancelled"


@pytest.mark.parametrize("probe", PROBES, ids=["activity-steps", "local-steps"])
async def test_deadline_passing_compensates(
    time_skipping_env: WorkflowEnvironment, probe: type
) -> None:
    steps = FakeSteps(transient={"transfer.capture": lambda attempt: True})
    saga = Saga(time_skipping_env, steps, probe)
    async with saga.worker():
        outcome = await outcome_of(await saga.start(request(deadline_seconds=100)))

    assert len(steps.of("transfer.capture")) < PROBE_RETRY.maximum_attempts
    assert steps.types()[-2:] == ["transfer.capture.undo", "transfer.reserve.undo"]
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "deadline"


async def _park(env: WorkflowEnvironment, broken: list[bool]) -> tuple[Saga, FakeSteps]:
    steps = FakeSteps(
        business={"transfer.credit"},
        transient={"transfer.capture.undo": lambda attempt: broken[0]},
    )
    return Saga(env, steps, TransferWorkflow), steps


async def wait_parked(env: WorkflowEnvironment, handle: WorkflowHandle[Any, Any]) -> SagaView:
    for _ in range(60):
        await env.sleep(timedelta(minutes=1))
        view = await status_of(handle)
        if view.status is SagaStatus.NEEDS_ATTENTION:
            return view
    raise AssertionError("the saga never parked")


async def test_exhausted_compensation_parks_and_operator_retry_completes_it(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    broken = [True]
    saga, steps = await _park(time_skipping_env, broken)
    async with saga.worker():
        handle = await saga.start(request())
        view = await wait_parked(time_skipping_env, handle)
        description = await handle.describe()
        assert description.typed_search_attributes.get(SAGA_STATUS) == "NEEDS_ATTENTION"
        assert [e.step_name for e in view.compensation_stack] == ["reserve", "capture"]
        compensation_attempts = len(steps.of("transfer.capture.undo"))

        broken[0] = False
        status = await handle.execute_update(
            "retry_compensation",
            await by(time_skipping_env, handle, OperatorAct.RETRY, "ana", note="bank fixed"),
        )
        outcome = await outcome_of(handle)

    assert compensation_attempts == 11
    assert status == SagaStatus.COMPENSATING.value or status == SagaStatus.COMPENSATED.value
    assert steps.types()[-2:] == ["transfer.capture.undo", "transfer.reserve.undo"]
    assert outcome.status is SagaStatus.COMPENSATED
    assert [a.operator for a in outcome.operator_actions] == ["ana"]
    assert [r.kind for r in steps.audit] == ["needs_attention", "operator_retry", "terminal"]
    action = steps.audit[1].payload["operator_action"]
    assert isinstance(action, dict)
    assert (action["operator"], action["note"], action["decision"]) == (
        "ana",
        "bank fixed",
        "retry",
    )
    assert verified_subject(action) == ("fundsaga-dev", "ana")
    assert "proof" not in action


async def test_operator_resolve_ends_resolved_and_updates_refused_when_not_parked(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    saga, steps = await _park(time_skipping_env, [True])
    async with saga.worker():
        handle = await saga.start(request())
        await wait_for_attempt(steps, "transfer.capture.undo")
        retry = await by(time_skipping_env, handle, OperatorAct.RETRY, "bo")
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update("retry_compensation", retry)
        await wait_parked(time_skipping_env, handle)
        proposal = await handle.execute_update(
            "propose_resolution",
            await by(time_skipping_env, handle, OperatorAct.PROPOSE, "bo", note="refunded by hand"),
        )
        approve = await by(
            time_skipping_env, handle, OperatorAct.APPROVE, "ana", proposal_id=proposal
        )
        await handle.execute_update("approve_resolution", approve)
        outcome = await outcome_of(handle)

    assert proposal == "p1"
    assert outcome.status is SagaStatus.RESOLVED
    assert [r.kind for r in steps.audit] == [
        "needs_attention",
        "resolution_proposed",
        "resolution_approved",
        "terminal",
    ]
    proposed = steps.audit[1].payload["proposal"]
    assert isinstance(proposed, dict)
    assert (proposed["proposal_id"], proposed["operator"], proposed["note"]) == (
        "p1",
        "bo",
        "refunded by hand",
    )
    assert proposed["at"] == {"parking": 1, "parked_on": "capture", "stack": ["capture", "reserve"]}
    assert verified_subject(proposed) == ("fundsaga-dev", "bo")
    approval = steps.audit[2].payload["operator_action"]
    assert isinstance(approval, dict)
    assert (approval["operator"], approval["decision"], approval["proposal_id"]) == (
        "ana",
        "approve",
        "p1",
    )
    assert verified_subject(approval) == ("fundsaga-dev", "ana")
    assert steps.types()[-1] == "transfer.reserve.undo"
    assert [c.result for c in outcome.compensations][-2:] == ["resolved", "compensated"]
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "NotParkedError"


async def test_audit_store_down_while_retries_exhaust_delays_the_saga_and_writes_one_record(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps = FakeSteps(transient={"transfer.credit": lambda attempt: True}, audit_down=True)
    saga = Saga(time_skipping_env, steps, TransferWorkflow)
    async with saga.worker():
        handle = await saga.start(request())
        for _ in range(100):
            await time_skipping_env.sleep(timedelta(seconds=30))
            if steps.audit_attempts >= 5:
                break
        assert (await handle.describe()).status is WorkflowExecutionStatus.RUNNING
        assert steps.audit == []
        steps.audit_down = False
        outcome = await outcome_of(handle)

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "retries_exhausted"
    assert steps.audit_attempts >= 6
    assert [r.kind for r in steps.audit] == ["terminal"]
    assert steps.audit[0].payload["reason"] == "retries_exhausted"
