"""Faults of the infrastructure on the time-skipping server: a step waits them out until the
saga's deadline, a compensation without limit; neither parks the saga for an operator."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from sagas import (
    AccountFrozenError,
    ConnectionDroppedError,
    DatabaseBusyError,
    FundsagaError,
    SagaStatus,
    SerializationFailureError,
)
from sagas.engine import SAGA_WAITING_ON
from tests.workflows._fakes import FakeSteps, RaiseWhen
from tests.workflows._probe import CLASS_PROBES
from tests.workflows.test_saga_runtime import Saga, outcome_of, request
from workflows import TransferWorkflow

MINUTE_MS = 60_000


def failing_until(attempt: int, error: type[FundsagaError]) -> RaiseWhen:
    return lambda n: error(f"database down (attempt {n})") if n <= attempt else None


async def waits_ms(handle: WorkflowHandle[Any, Any]) -> list[int]:
    """The saga's waits on the infrastructure: its timers of a second up to the minute's cap
    (the quick retries within a run are shorter, the saga's deadline timer longer)."""
    history = await handle.fetch_history()
    timers = [
        round(
            e.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta()
            / timedelta(milliseconds=1)
        )
        for e in history.events
        if e.HasField("timer_started_event_attributes")
    ]
    return [t for t in timers if 1000 <= t <= MINUTE_MS]


@pytest.mark.parametrize("workflow", CLASS_PROBES, ids=["activity", "local"])
async def test_a_step_waits_out_a_database_outage_and_completes(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    """Four quick attempts per run (100, 200, 400 ms), then the saga waits 1 s, 2 s ... and runs
    the step again; its attempts count on, and the saga completes as if nothing happened."""
    steps = FakeSteps(raising={"transfer.credit": failing_until(9, ConnectionDroppedError)})
    saga = Saga(time_skipping_env, steps, workflow)
    async with saga.worker():
        handle = await saga.start(request())
        outcome = await outcome_of(handle)
        waits = await waits_ms(handle)
        attributes = (await handle.describe()).typed_search_attributes

    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.failure is None
    assert [a.attempt for a in steps.of("transfer.credit")] == list(range(1, 11))
    assert waits == [1000, 2000]
    assert attributes.get(SAGA_WAITING_ON) == ""  # it waits no more
    assert "needs_attention" not in [r.kind for r in steps.audit]


async def test_a_step_waits_until_the_deadline_then_compensates(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps = FakeSteps(raising={"transfer.credit": failing_until(10_000, SerializationFailureError)})
    saga = Saga(time_skipping_env, steps, CLASS_PROBES[0])
    async with saga.worker():
        handle = await saga.start(request(deadline_seconds=600))
        outcome = await outcome_of(handle)
        waits = await waits_ms(handle)

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "deadline"
    assert waits[:8] == [1000, 2000, 4000, 8000, 16000, 32000, MINUTE_MS, MINUTE_MS]
    assert len(waits) < 20  # the deadline, ten minutes, ended the waits
    assert "needs_attention" not in [r.kind for r in steps.audit]


async def test_a_compensation_waits_out_the_infrastructure_without_limit_and_never_parks(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    """Thirty quick attempts' worth of a database that stays down: a compensation that ran out
    of retries parked before; now it waits at most a minute between runs and finishes."""
    steps = FakeSteps(
        raising={
            "transfer.credit": lambda n: AccountFrozenError("frozen"),
            "transfer.capture.undo": failing_until(120, DatabaseBusyError),
        }
    )
    saga = Saga(time_skipping_env, steps, TransferWorkflow)
    async with saga.worker():
        handle = await saga.start(request())
        outcome = await outcome_of(handle)
        waits = await waits_ms(handle)

    assert outcome.status is SagaStatus.COMPENSATED
    assert {c.result for c in outcome.compensations} == {"compensated"}
    assert len(steps.of("transfer.capture.undo")) == 121
    assert max(waits) == MINUTE_MS
    assert [r.kind for r in steps.audit] == ["terminal"]
