"""Recorded histories per workflow type: the saga of each outcome, its file, its faults."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from sagas.client import saga_id
from sagas.engine import Phase, SagaDefinition, StepDefinition
from sagas.registry import SagaType, workflow_type_name
from sagas.testing._matrix import fault_rule
from sagas.testing._matrix_case import Fault


class Outcome(StrEnum):
    """The ends a recorded history shows; `retried` is COMPENSATED after an operator's retry,
    `forward-retried` is COMPLETED after an operator's retry of the pivot step."""

    COMPLETED = "completed"
    COMPENSATED = "compensated"
    NEEDS_ATTENTION = "needs-attention"
    RESOLVED = "resolved"
    RETRIED = "retried"
    FORWARD_RETRIED = "forward-retried"


PARKING = (Outcome.NEEDS_ATTENTION, Outcome.RESOLVED, Outcome.RETRIED, Outcome.FORWARD_RETRIED)


def _failing_step(definition: SagaDefinition[Any, Any]) -> int | None:
    """The step refused to make the saga compensate: the last one before its pivot."""
    pivot = definition.pivot_index
    index = len(definition.steps) - 1 if pivot is None else pivot - 1
    return index if index >= 0 else None


def first_compensation(definition: SagaDefinition[Any, Any]) -> StepDefinition[Any] | None:
    """The step whose compensation runs first when the failing step is refused."""
    failing = _failing_step(definition)
    if failing is None:
        return None
    compensable = [s for s in definition.steps[: failing + 1] if s.compensation is not None]
    return compensable[-1] if compensable else None


def outcomes(definition: SagaDefinition[Any, Any]) -> list[Outcome]:
    """Every outcome the saga can be driven to: compensating needs a step before the pivot,
    parking on a compensation a compensable one, parking forward a pivot."""
    found = [Outcome.COMPLETED]
    if _failing_step(definition) is not None:
        found.append(Outcome.COMPENSATED)
    if first_compensation(definition) is not None:
        found += [Outcome.NEEDS_ATTENTION, Outcome.RESOLVED, Outcome.RETRIED]
    if definition.pivot_index is not None:
        found.append(Outcome.FORWARD_RETRIED)
    return found


def outcome_faults(definition: SagaDefinition[Any, Any], outcome: Outcome) -> str:
    """The worker's fault rules that drive a saga to `outcome`: the step before the pivot (or
    the last) refused, for the parking outcomes the first compensation refused too, and for
    `forward-retried` the pivot refused."""
    saga_type = definition.saga_type
    if outcome is Outcome.COMPLETED:
        return ""
    if outcome is Outcome.FORWARD_RETRIED:
        pivot = definition.steps[definition.pivot_index or 0]
        return fault_rule(saga_type, pivot.name, Phase.ACTION, Fault.BUSINESS)
    failing = definition.steps[_failing_step(definition) or 0]
    rules = [fault_rule(saga_type, failing.name, Phase.ACTION, Fault.BUSINESS)]
    parks_on = first_compensation(definition)
    if outcome in PARKING and parks_on is not None:
        rules.append(fault_rule(saga_type, parks_on.name, Phase.COMPENSATION, Fault.BUSINESS))
    return ";".join(rules)


def history_key(workflow_class: type, outcome: Outcome) -> str:
    """The idempotency key of the saga recorded for this workflow type and outcome."""
    return f"replay-{workflow_type_name(workflow_class)}-{outcome.value}"


def history_path(
    directory: Path, saga_type: SagaType, workflow_class: type, outcome: Outcome
) -> Path:
    """`<directory>/<saga id>.json`: one file per workflow type and outcome."""
    return directory / f"{saga_id(saga_type.name, history_key(workflow_class, outcome))}.json"
