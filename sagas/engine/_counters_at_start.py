"""A worker's counters exported at 0 from its start, for every label it knows then.

The SDK's exporter shows a counter's series first when it is first added to, so without this a
series is born at 1 on its first event and Prometheus's `increase()` reads that event as 0. The
series here carry the labels the SDK adds in a workflow (namespace, task_queue, workflow_type)
or an activity (namespace, task_queue, activity_type), so the first event adds to them. Labels
known only later (a schedule's id, a refused payload's type) are left to the alert rules, which
count a series born inside their window in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from temporalio.common import MetricMeter

from sagas.engine._definition import SagaDefinition
from sagas.engine._metrics import (
    COMPENSATIONS,
    OPERATOR_REFUSALS,
    SAGAS_FINISHED,
    SAGAS_STARTED,
    STEP_ATTEMPTS,
    AttemptOutcome,
    counter,
)
from sagas.engine._operator_identity import OPERATOR_IDENTITY_ACTIVITY, OperatorRole
from sagas.engine._outcome import CompensationResult
from sagas.engine._status import Phase, SagaStatus


def export_counters_at_zero(
    meter: MetricMeter,
    namespace: str,
    task_queue: str,
    definitions: Mapping[str, SagaDefinition[Any, Any]],
) -> None:
    """Add 0 to the counters the alert rules and the dashboard read, for each saga type's
    workflow types (`definitions` by workflow type), its steps and every operator role."""
    queue = {"namespace": namespace, "task_queue": task_queue}
    for workflow_type, definition in definitions.items():
        on_workflow = meter.with_additional_attributes({**queue, "workflow_type": workflow_type})
        saga = {"saga_type": definition.saga_type}
        counter(on_workflow, SAGAS_STARTED).add(0, saga)
        for status in SagaStatus:
            if status.is_terminal:
                counter(on_workflow, SAGAS_FINISHED).add(0, {**saga, "status": status.value})
        for step in definition.steps:
            if step.compensation is None:
                continue
            for result in CompensationResult:
                labels = {**saga, "step": step.name, "outcome": result.value}
                counter(on_workflow, COMPENSATIONS).add(0, labels)
    for definition in {d.saga_type: d for d in definitions.values()}.values():
        for step in definition.steps:
            sides = [(Phase.ACTION, step.action), (Phase.COMPENSATION, step.compensation)]
            for phase, activity_type in sides:
                if activity_type is None:
                    continue
                on_activity = meter.with_additional_attributes(
                    {**queue, "activity_type": activity_type}
                )
                labels = {
                    "saga_type": definition.saga_type,
                    "step": step.name,
                    "phase": phase.value,
                    "outcome": AttemptOutcome.FAILED.value,
                }
                counter(on_activity, STEP_ATTEMPTS).add(0, labels)
    on_identity = meter.with_additional_attributes(
        {**queue, "activity_type": OPERATOR_IDENTITY_ACTIVITY}
    )
    for role in OperatorRole:
        counter(on_identity, OPERATOR_REFUSALS).add(0, {"role": role.value})
