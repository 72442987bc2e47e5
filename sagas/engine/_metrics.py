"""The engine's metrics, named as Prometheus scrapes them from the SDK's exporter.

Workflow code records on `workflow.metric_meter()`, which records nothing while a history is
replayed, so a saga is counted once however often a worker replays it. Activities record on
`activity.metric_meter()`. Outside a worker (unit tests, a plain call) nothing is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from enum import StrEnum
from typing import Any

from temporalio import activity, workflow
from temporalio.common import MetricCounter, MetricMeter
from temporalio.exceptions import ApplicationError, TemporalError

from sagas.engine._definition import StepCall
from sagas.engine._status import SagaStatus
from sagas.foundations import retry_class_of

SAGAS_STARTED = "fundsaga_sagas_started"
SAGAS_FINISHED = "fundsaga_sagas_finished"
STEP_ATTEMPTS = "fundsaga_step_attempts"
STEP_RETRIES = "fundsaga_step_retries"
COMPENSATIONS = "fundsaga_compensations"
COMPENSATION_DURATION = "fundsaga_compensation_duration_seconds"
AUDIT_WRITES = "fundsaga_audit_writes"
AUDIT_WRITE_DURATION = "fundsaga_audit_write_duration_seconds"
ANCHOR_WRITES = "fundsaga_anchor_writes"
ANCHOR_WRITE_DURATION = "fundsaga_anchor_write_duration_seconds"
SCHEDULED_RUNS = "fundsaga_scheduled_runs"
OPERATOR_REFUSALS = "fundsaga_operator_refusals"
PLAIN_TEXT_REFUSED = "fundsaga_plain_text_refused"
INFRASTRUCTURE_WAITS = "fundsaga_infrastructure_waits"

METRICS_HISTOGRAM_BUCKETS: Mapping[str, list[float]] = {
    COMPENSATION_DURATION: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
    AUDIT_WRITE_DURATION: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    ANCHOR_WRITE_DURATION: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
}
"""Seconds; the SDK's default buckets stop at 10 s, and a compensation may wait for an operator."""

COUNTER_DESCRIPTIONS: Mapping[str, str] = {
    SAGAS_STARTED: "Sagas started.",
    SAGAS_FINISHED: "Sagas closed, by final status.",
    COMPENSATIONS: "Compensations ended, by outcome.",
    INFRASTRUCTURE_WAITS: "Waits on a fault of the infrastructure begun, by phase and error type.",
    SCHEDULED_RUNS: "Scheduled runs ended, by their saga's status.",
    PLAIN_TEXT_REFUSED: (
        "Plain-text payloads refused by a deployment that encrypts, by workflow type."
    ),
    STEP_ATTEMPTS: "Step activity attempts, by how each ended.",
    STEP_RETRIES: "Failed step attempts that Temporal runs again.",
    AUDIT_WRITES: "Audit record writes, by result.",
    ANCHOR_WRITES: "Anchor writes, by result.",
    OPERATOR_REFUSALS: "Operator actions refused for their proof of identity or role.",
}
"""Each counter's help text, the same wherever it is created (the exporter keeps one per name)."""


class AttemptOutcome(StrEnum):
    """How one attempt of a step activity ended."""

    SUCCEEDED = "succeeded"
    RETRIED = "retried"  # it failed, and Temporal runs it again
    FAILED = "failed"  # it ended the step's retries: a business refusal, or its class's limit
    CANCELLED = "cancelled"


class WriteResult(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"


# ---- workflow side
def saga_started(saga_type: str) -> None:
    _count(workflow.metric_meter(), SAGAS_STARTED, saga_type=saga_type)


def saga_finished(saga_type: str, status: SagaStatus) -> None:
    _count(
        workflow.metric_meter(),
        SAGAS_FINISHED,
        saga_type=saga_type,
        status=status.value,
    )


def compensation_ended(saga_type: str, step: str, outcome: str) -> None:
    _count(
        workflow.metric_meter(),
        COMPENSATIONS,
        saga_type=saga_type,
        step=step,
        outcome=outcome,
    )


def saga_compensated(saga_type: str, since_failure: timedelta) -> None:
    workflow.metric_meter().create_histogram_float(
        COMPENSATION_DURATION, "Time from a saga's failure to COMPENSATED.", "s"
    ).record(since_failure.total_seconds(), {"saga_type": saga_type})


def infrastructure_wait_began(saga_type: str, phase: str, error_type: str) -> None:
    """A saga's step or compensation ran out of quick retries on a fault of the
    infrastructure and waits it out (once per wait, however many runs it takes)."""
    _count(
        workflow.metric_meter(),
        INFRASTRUCTURE_WAITS,
        saga_type=saga_type,
        phase=phase,
        error_type=error_type,
    )


def scheduled_run_ended(saga_type: str, schedule_id: str, status: str) -> None:
    """One fire of a schedule ended: its saga's final status, DUPLICATE (that local time had
    run) or FAILED (the saga's workflow failed, was terminated or timed out)."""
    _count(
        workflow.metric_meter(),
        SCHEDULED_RUNS,
        saga_type=saga_type,
        schedule_id=schedule_id,
        status=status,
    )


def plain_text_refused(payload_type: str) -> None:
    """A deployment that encrypts refused a plain-text input, update or signal. Outside a
    workflow nothing is counted: there the refusal is an error its caller sees."""
    if not workflow.in_workflow():
        return
    _count(
        workflow.metric_meter(),
        PLAIN_TEXT_REFUSED,
        workflow_type=workflow.info().workflow_type,
        payload_type=payload_type,
    )


# ---- activity side
@contextmanager
def step_attempt(call: StepCall[Any, Any]) -> Iterator[None]:
    """Count one attempt of a step activity by how it ended, and a retry when Temporal will
    run it again (by the error's class and retry class)."""
    labels = {"saga_type": call.saga_type, "step": call.step_name, "phase": call.phase.value}
    try:
        yield
    except ApplicationError as err:
        retried = not err.non_retryable
        _attempt(labels, AttemptOutcome.RETRIED if retried else AttemptOutcome.FAILED)
        if retried:
            _retry(labels, err.type or type(err).__name__, err.__cause__ or err)
        raise
    except TemporalError:
        _attempt(labels, AttemptOutcome.CANCELLED)
        raise
    except Exception as err:  # raw: Temporal's retry policy decides
        _attempt(labels, AttemptOutcome.RETRIED)
        _retry(labels, type(err).__name__, err)
        raise
    _attempt(labels, AttemptOutcome.SUCCEEDED)


@contextmanager
def measured_audit_write(kind: str) -> Iterator[None]:
    with _timed_write(AUDIT_WRITES, AUDIT_WRITE_DURATION, "audit record", kind=kind):
        yield


@contextmanager
def measured_anchor_write() -> Iterator[None]:
    with _timed_write(ANCHOR_WRITES, ANCHOR_WRITE_DURATION, "anchor"):
        yield


@contextmanager
def _timed_write(counter: str, histogram: str, what: str, **labels: str) -> Iterator[None]:
    meter = _activity_meter()
    began = time.monotonic()
    result = WriteResult.FAILURE
    try:
        yield
        result = WriteResult.SUCCESS
    finally:
        seconds = time.monotonic() - began
        labels["result"] = result.value
        _count(meter, counter, **labels)
        meter.create_histogram_float(histogram, f"Latency of {what} writes.", "s").record(
            seconds, labels
        )


def operator_action_refused(role: str, *, in_validator: bool = False) -> None:
    """An operator action refused by the worker's identity check (no proof, a forged, expired,
    unbound or spent one, a missing role); counted in the identity activity or, with
    `in_validator`, in an update's validator (which never runs on replay)."""
    meter = workflow.metric_meter() if in_validator else _activity_meter()
    _count(meter, OPERATOR_REFUSALS, role=role)


def _attempt(labels: dict[str, str], outcome: AttemptOutcome) -> None:
    _count(
        _activity_meter(),
        STEP_ATTEMPTS,
        outcome=outcome.value,
        **labels,
    )


def _retry(labels: dict[str, str], error_class: str, error: BaseException) -> None:
    _count(
        _activity_meter(),
        STEP_RETRIES,
        error_class=error_class,
        retry_class=retry_class_of(error).value,
        **labels,
    )


def _activity_meter() -> MetricMeter:
    if not activity.in_activity():
        return MetricMeter.noop
    try:
        return activity.metric_meter()
    except RuntimeError:  # a sync activity outside a thread pool has no meter
        return MetricMeter.noop


def counter(meter: MetricMeter, name: str) -> MetricCounter:
    """The engine's counter `name` on `meter`, with its one help text."""
    return meter.create_counter(name, COUNTER_DESCRIPTIONS[name])


def _count(meter: MetricMeter, name: str, **labels: str) -> None:
    counter(meter, name).add(1, labels)
