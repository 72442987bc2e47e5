"""Recorded histories per workflow type: the saga of each outcome, its file, its faults."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from sagas.app import SagaType, saga_id, workflow_type_name
from sagas.engine import Phase, SagaDefinition, StepDefinition
from sagas.testing._matrix import Fault, fault_rule


class Outcome(StrEnum):
    """The ends a recorded history shows; `retried` is COMPENSATED after an operator's retry."""

    COMPLETED = "completed"
    COMPENSATED = "compensated"
    NEEDS_ATTENTION = "needs-attention"
    RESOLVED = "resolved"
    RETRIED = "retried"


PARKING = (Outcome.NEEDS_ATTENTION, Outcome.RESOLVED, Outcome.RETRIED)


def first_compensation(definition: SagaDefinition[Any, Any]) -> StepDefinition[Any] | None:
    """The step whose compensation runs first when the last action fails."""
    compensable = [step for step in definition.steps if step.compensation is not None]
    return compensable[-1] if compensable else None


def outcomes(definition: SagaDefinition[Any, Any]) -> list[Outcome]:
    """Every outcome the saga can be driven to; parking needs a step with a compensation."""
    if first_compensation(definition) is None:
        return [Outcome.COMPLETED, Outcome.COMPENSATED]
    return list(Outcome)


def outcome_faults(definition: SagaDefinition[Any, Any], outcome: Outcome) -> str:
    """The worker's fault rules that drive a saga to `outcome`: the last action refused, and
    for the parking outcomes the first compensation refused too."""
    if outcome is Outcome.COMPLETED:
        return ""
    rules = [
        fault_rule(definition.saga_type, definition.steps[-1].name, Phase.ACTION, Fault.BUSINESS)
    ]
    parks_on = first_compensation(definition)
    if outcome in PARKING and parks_on is not None:
        rules.append(
            fault_rule(definition.saga_type, parks_on.name, Phase.COMPENSATION, Fault.BUSINESS)
        )
    return ";".join(rules)


def history_key(workflow_class: type, outcome: Outcome) -> str:
    """The idempotency key of the saga recorded for this workflow type and outcome."""
    return f"replay-{workflow_type_name(workflow_class)}-{outcome.value}"


def history_path(
    directory: Path, saga_type: SagaType, workflow_class: type, outcome: Outcome
) -> Path:
    """`<directory>/<saga id>.json`: one file per workflow type and outcome."""
    return directory / f"{saga_id(saga_type.name, history_key(workflow_class, outcome))}.json"
