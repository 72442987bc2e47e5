"""A step that awaits an external event (time-skipping server): the first event counts, a
duplicate has no second effect, and without one the step runs after its wait and asks."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import EventWait, SagaStatus, StepDefinition
from sagas.client import FundsagaClient, SagaHandle
from tests.events.saga import ACTIONS_RUN, SETTLE_SAGA, WAIT


async def _start(client: FundsagaClient) -> SagaHandle:
    key = f"s-{uuid.uuid4().hex[:10]}"
    await client.start("test-settle", {"idempotency_key": key})
    return client.saga("test-settle", key)


def _runs(saga: SagaHandle) -> list[str]:
    return [settled_by for saga_id, settled_by in ACTIONS_RUN if saga_id == saga.saga_id]


async def test_the_action_gets_the_event(client: FundsagaClient) -> None:
    saga = await _start(client)
    await saga.signal_event("settled", {"reference": "r-1"})

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert _runs(saga) == ["r-1"]
    view = await saga.view()
    assert [(e.event, e.result) for e in view.events] == [("settled", EventWait.RECEIVED)]


async def test_a_duplicate_event_has_one_effect(client: FundsagaClient) -> None:
    saga = await _start(client)
    await saga.signal_event("settled", {"reference": "first"})
    await saga.signal_event("settled", {"reference": "second"})
    await saga.signal_event("other", {"reference": "ignored"})

    await saga.outcome()

    assert _runs(saga) == ["first"]
    view = await saga.view()
    assert [(e.event, e.result) for e in view.events] == [("settled", EventWait.RECEIVED)]


async def test_without_the_event_the_step_runs_after_its_wait(
    client: FundsagaClient, time_skipping_env: WorkflowEnvironment
) -> None:
    saga = await _start(client)
    await time_skipping_env.sleep(WAIT + timedelta(seconds=1))

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert _runs(saga) == ["asking"]
    view = await saga.view()
    [record] = view.events
    assert record.result is EventWait.TIMED_OUT
    assert record.at >= view.snapshots[0].recorded_at + WAIT


def test_a_local_step_cannot_await() -> None:
    step = SETTLE_SAGA.steps[0]
    with pytest.raises(ValueError, match="not local"):
        type(SETTLE_SAGA)(
            saga_type="x",
            request_type=SETTLE_SAGA.request_type,
            state_type=SETTLE_SAGA.state_type,
            steps=(StepDefinition(**{**step.__dict__, "local": True}),),
        )
