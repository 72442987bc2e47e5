"""Retry classes on the time-skipping server: each class's attempts and waits, for a regular and a
local-activity step.

A regular step's waits are measured between its attempts' start times (server time, skipped). A
local step's attempts run in the worker on wall-clock time while the server skips its waits, so
they are measured as the durable timers between its attempts, in the history."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import timedelta

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import (
    AccountFrozenError,
    ConnectionDroppedError,
    FundsagaError,
    SagaOutcome,
    SagaStatus,
    StepTimeoutError,
    TransientError,
)
from tests.workflows._fakes import Attempt, FakeSteps, RaiseWhen
from tests.workflows._probe import CLASS_PROBES, ClassProbeLocalStepsWorkflow
from tests.workflows.test_saga_runtime import Saga, outcome_of, request

MODES = CLASS_PROBES


LATENCY_ALLOWANCE_MS = 300


@dataclass(frozen=True)
class Run:
    steps: FakeSteps
    outcome: SagaOutcome
    timers_ms: list[int]
    """Every timer the workflow started but the saga's deadline (local mode), in ms."""
    local: bool

    def attempts(self) -> list[int]:
        return [a.attempt for a in self.steps.of("transfer.credit")]

    def waits_ms(self) -> list[int]:
        """The waits between the credit's attempts: a local step's timers, a regular step's gaps
        between attempt starts."""
        if self.local:
            return self.timers_ms
        return gaps_ms(self.steps.of("transfer.credit"))

    def assert_waits(self, expected: list[int]) -> None:
        """A local step's timers are the waits exactly. A regular step's gaps also hold the
        attempt's run and its failure's trip to the server, which a loaded machine stretches:
        each is at least its wait and under LATENCY_ALLOWANCE_MS more (or twice it, for longer
        waits), which still tells doubling waits from any other."""
        waits = self.waits_ms()
        if self.local:
            assert waits == expected
            return
        assert len(waits) == len(expected), (waits, expected)
        for gap, wait in zip(waits, expected, strict=True):
            assert wait <= gap < wait + max(wait, LATENCY_ALLOWANCE_MS), (waits, expected)

    @property
    def reason(self) -> str | None:
        return self.outcome.failure.reason if self.outcome.failure else None


def gaps_ms(attempts: list[Attempt]) -> list[int]:
    """Gaps between attempt starts, in whole tenths of a second."""
    return [
        int((later.started_at - earlier.started_at).total_seconds() * 1000) // 100 * 100
        for earlier, later in itertools.pairwise(attempts)
    ]


async def run_credit(env: WorkflowEnvironment, workflow: type, fail: RaiseWhen) -> Run:
    saga = Saga(env, FakeSteps(raising={"transfer.credit": fail}), workflow)
    async with saga.worker():
        handle = await saga.start(request())
        outcome = await outcome_of(handle)
        history = await handle.fetch_history()
    timers = [
        round(attrs.start_to_fire_timeout.ToTimedelta().total_seconds() * 1000)
        for event in history.events
        if event.HasField("timer_started_event_attributes")
        for attrs in [event.timer_started_event_attributes]
    ]
    local = workflow is ClassProbeLocalStepsWorkflow
    return Run(saga.steps, outcome, timers[1:] if local else timers, local)


def always(error: type[FundsagaError]) -> RaiseWhen:
    return lambda attempt: error(f"attempt {attempt}")


@pytest.mark.parametrize("workflow", MODES, ids=["activity", "local"])
async def test_an_instant_fault_retries_after_100_200_400_ms_then_exhausts(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    error = StepTimeoutError
    run = await run_credit(time_skipping_env, workflow, always(error))

    assert run.attempts() == [1, 2, 3, 4]
    run.assert_waits([100, 200, 400])
    assert run.outcome.status is SagaStatus.COMPENSATED
    assert run.outcome.failure is not None
    assert run.reason == "retries_exhausted"
    assert run.outcome.failure.error_type == error.__name__
    assert run.outcome.failure.attempts == 4


@pytest.mark.parametrize("workflow", MODES, ids=["activity", "local"])
async def test_a_temporary_fault_retries_by_the_steps_spec(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    run = await run_credit(time_skipping_env, workflow, always(TransientError))

    assert run.attempts() == [1, 2, 3, 4, 5]
    run.assert_waits([1000, 2000, 4000, 8000])
    assert run.reason == "retries_exhausted"
    assert run.outcome.failure is not None
    assert run.outcome.failure.attempts == 5


@pytest.mark.parametrize("workflow", MODES, ids=["activity", "local"])
async def test_a_permanent_fault_is_never_retried(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    run = await run_credit(time_skipping_env, workflow, always(AccountFrozenError))

    assert run.attempts() == [1]
    assert run.reason == "business_error"


@pytest.mark.parametrize("workflow", MODES, ids=["activity", "local"])
async def test_each_attempt_waits_by_the_class_of_its_own_fault(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    errors = [StepTimeoutError, TransientError, StepTimeoutError]
    run = await run_credit(
        time_skipping_env,
        workflow,
        lambda attempt: errors[attempt - 1]("fault") if attempt <= len(errors) else None,
    )

    run.assert_waits([100, 2000, 400])
    assert run.outcome.status is SagaStatus.COMPLETED


@pytest.mark.parametrize("workflow", MODES, ids=["activity", "local"])
async def test_a_counterpartys_retry_after_is_honoured(
    time_skipping_env: WorkflowEnvironment, workflow: type
) -> None:
    run = await run_credit(
        time_skipping_env,
        workflow,
        lambda attempt: (
            ConnectionDroppedError("busy", retry_after=timedelta(seconds=3))
            if attempt == 1
            else None
        ),
    )

    run.assert_waits([3000])
