"""Runs one fault-matrix case on a real worker, then (if the saga parks) acts as the operator."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import Worker

from sagas.audit import AuditStore
from sagas.client import SagaHandle, saga_id
from sagas.engine import (
    VIEW_QUERY,
    FaultPlan,
    Phase,
    SagaDefinition,
    SagaOutcome,
    SagaRequest,
    SagaStatus,
    SagaView,
    parse_faults,
)
from sagas.ledger import Ledger
from sagas.registry import activity_name
from sagas.testing._environments import new_task_queue, saga_worker
from sagas.testing._identity import kit_operator
from sagas.testing._matrix_case import Decision, MatrixCase
from sagas.testing._operators import MAKER, resolve_by_two
from sagas.testing._scenario import SagaScenario

NOTE = "fixed the cause"


@dataclass(frozen=True)
class ClearableFaults(FaultPlan):
    """A fault plan the test clears, as an operator fixes the cause before acting.

    The worker stays up: the Java test server routes an update to the sticky queue of the
    worker that last ran the saga, so a replacement worker would never receive it.
    """

    def clear(self) -> None:
        object.__setattr__(self, "rules", ())


@dataclass(frozen=True)
class CaseRun:
    """What a user can see of one case once the saga has closed."""

    outcome: SagaOutcome
    closed_as: WorkflowExecutionStatus | None
    parked: SagaView | None = None
    """The saga's state while it waited for the operator."""
    running_while_parked: bool = False
    audit_while_parked: tuple[str, ...] = ()
    operator_saw: SagaStatus | None = None


async def run_case(
    env: WorkflowEnvironment,
    scenario: SagaScenario,
    case: MatrixCase,
    request: SagaRequest,
    ledger: Ledger,
    audit_store: AuditStore,
) -> CaseRun:
    faults = ClearableFaults(parse_faults(case.faults).rules)
    task_queue = new_task_queue()
    sid = saga_id(case.saga_type, request.idempotency_key)
    async with saga_worker(
        env,
        [scenario.saga_type],
        ledger,
        audit_store,
        task_queue=task_queue,
        faults=faults,
        workflows=[case.workflow],
    ) as worker:
        handle = await env.client.start_workflow(
            case.workflow_name, request, id=sid, task_queue=task_queue
        )
        if case.decision is None:
            return await _closed(handle)
        parked = await _wait_parked(env, handle, _patience(case.definition, request))
        running = (await handle.describe()).status is WorkflowExecutionStatus.RUNNING
        audit = tuple(r.kind for r in audit_store.records(saga_id=sid))
        faults.clear()
        if case.decision is Decision.RESOLVE:
            _compensate_by_hand(worker, case, request, parked, _run_chain(handle))
        saw = await _act(env, case, request)
        closed = await _closed(handle)
    return CaseRun(
        outcome=closed.outcome,
        closed_as=closed.closed_as,
        parked=parked,
        running_while_parked=running,
        audit_while_parked=audit,
        operator_saw=saw,
    )


async def _act(env: WorkflowEnvironment, case: MatrixCase, request: SagaRequest) -> SagaStatus:
    """The case's decision: a retry by one operator, or a resolution by two."""
    now = await env.get_current_time()  # the workflows' clock, ahead of ours once it skipped
    maker = kit_operator(MAKER, issued_at=now)
    saga = SagaHandle(env.client, case.saga_type, request.idempotency_key, maker)
    if case.decision is Decision.RETRY:
        return await saga.retry(NOTE)
    return await resolve_by_two(saga, NOTE, issued_at=now)


async def _closed(handle: WorkflowHandle[Any, Any]) -> CaseRun:
    outcome = SagaOutcome.model_validate(await handle.result())
    return CaseRun(outcome=outcome, closed_as=(await handle.describe()).status)


def _patience(definition: SagaDefinition[Any, Any], request: SagaRequest) -> int:
    """Minutes of workflow time to wait for a saga to park: an hour, plus every wait for an
    external event (none arrives in a matrix case)."""
    awaiting = sum((s.event_wait(request) for s in definition.steps if s.awaits), timedelta())
    return 60 + math.ceil(awaiting / timedelta(minutes=1))


async def _wait_parked(
    env: WorkflowEnvironment, handle: WorkflowHandle[Any, Any], minutes: int
) -> SagaView:
    for _ in range(minutes):
        view: SagaView = await handle.query(VIEW_QUERY, result_type=SagaView)
        if view.status is SagaStatus.NEEDS_ATTENTION:
            return view
        await env.sleep(timedelta(minutes=1))
    raise AssertionError(f"saga {handle.id} never parked")


def _run_chain(handle: WorkflowHandle[Any, Any]) -> str:
    """The run chain a started saga claims its id for: its first execution's run id."""
    chain = handle.first_execution_run_id
    if chain is None:
        raise AssertionError(f"{handle.id} has no first execution run id")
    return chain


def _compensate_by_hand(
    worker: Worker, case: MatrixCase, request: SagaRequest, parked: SagaView, chain: str
) -> None:
    """What an operator does before resolving: run the step's compensation once, healthy."""
    definition, step = case.definition, case.step
    (compensation,) = [
        fn for fn in worker.config()["activities"] if activity_name(fn) == step.compensation
    ]
    call = definition.call_type(
        saga_id=parked.saga_id,
        saga_type=definition.saga_type,
        step_index=case.step_index,
        step_name=step.name,
        phase=Phase.COMPENSATION,
        run_chain=chain,
        request=request,
        state=definition.state_type.model_validate(parked.snapshots[-1].data),
    )
    ActivityEnvironment().run(compensation, call)
