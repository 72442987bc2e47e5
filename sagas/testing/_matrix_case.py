"""One case of a fault matrix and what it expects: the shapes `_matrix` builds and a scenario's
`expected_end` reads."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sagas.engine import Phase, SagaDefinition, SagaStatus, StepDefinition
from sagas.registry import workflow_type_name


class Fault(StrEnum):
    BUSINESS = "business"  # a non-retryable error before the effect
    TRANSIENT = "transient"  # a retryable error before the effect, on every attempt
    TIMEOUT_ONCE = "timeout-once"  # the effect commits, then the first attempt times out
    TIMEOUT_ALWAYS = "timeout-always"  # the effect commits, then every attempt times out


class Decision(StrEnum):
    RETRY = "retry"  # the operator retries the parked compensation on a healthy worker
    RESOLVE = "resolve"  # an operator undoes the step by hand, proposes, and another approves


@dataclass(frozen=True, kw_only=True)
class Expected:
    status: SagaStatus
    failure: tuple[str, str, str, int] | None
    """(step, reason, error type, attempts) of the forward failure."""
    attempts: tuple[int, ...]
    """The attempt stored on the snapshot of each step reached, in step order."""
    compensations: tuple[tuple[str, str], ...]
    """(step, result) of each compensation, in the order they ran."""
    audit: tuple[str, ...]
    """Kinds of the saga's audit records, in order."""
    operator_sees: SagaStatus | None = None
    """What the operator's update returns; None when the saga does not park."""


@dataclass(frozen=True, kw_only=True)
class MatrixCase:
    saga_type: str
    workflow: type
    definition: SagaDefinition[Any, Any]
    step_index: int
    phase: Phase
    fault: Fault
    decision: Decision | None
    faults: str
    """The worker's FUNDSAGA_FAULTS until the saga ends or parks."""
    expected: Expected

    @property
    def step(self) -> StepDefinition[Any]:
        return self.definition.steps[self.step_index]

    @property
    def workflow_name(self) -> str:
        return workflow_type_name(self.workflow)

    @property
    def id(self) -> str:
        parts = [self.workflow_name, self.step.name, self.phase.value, self.fault.value]
        return "-".join([*parts, self.decision.value] if self.decision else parts)

    def __str__(self) -> str:
        return self.id
