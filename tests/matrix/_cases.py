"""The fault matrix, generated from the definition of every saga type the engine runs.

For each step, its action and then its compensation fail in turn with each Fault; the expected
final status, failure, snapshots, compensations and audit records follow from the definition.
A compensation only runs once the saga compensates, so its cases also make the last action
commit and time out on every attempt: every step has then taken effect and must be undone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sagas import (
    FundsagaError,
    Phase,
    SagaDefinition,
    SagaStatus,
    SagaWorkflow,
    StepDefinition,
    parse_faults,
)
from sagas.engine import AuditKind
from tests.fixtures_temporal import workflow_name


class Fault(StrEnum):
    BUSINESS = "business"  # a non-retryable error before the effect
    TRANSIENT = "transient"  # a retryable error before the effect, on every attempt
    TIMEOUT_ONCE = "timeout-once"  # the effect commits, then the first attempt times out
    TIMEOUT_ALWAYS = "timeout-always"  # the effect commits, then every attempt times out


RULE = {
    Fault.BUSINESS: "business",
    Fault.TRANSIENT: "transient",
    Fault.TIMEOUT_ONCE: "timeout*1",
    Fault.TIMEOUT_ALWAYS: "timeout",
}
"""Each fault as a FUNDSAGA_FAULTS rule kind."""


class Decision(StrEnum):
    RETRY = "retry"  # the operator retries the parked compensation on a healthy worker
    RESOLVE = "resolve"  # the operator undoes the step by hand and resolves the saga


COMPENSATED = "compensated"
FAILED = "failed"
RESOLVED_BY_OPERATOR = "resolved_by_operator"


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
    workflow: type[SagaWorkflow]
    step_index: int
    phase: str
    fault: Fault
    decision: Decision | None
    faults: str
    """The worker's FUNDSAGA_FAULTS until the saga ends or parks."""
    expected: Expected

    @property
    def definition(self) -> SagaDefinition[Any, Any]:
        return self.workflow.definition

    @property
    def step(self) -> StepDefinition[Any]:
        return self.definition.steps[self.step_index]

    @property
    def workflow_name(self) -> str:
        return workflow_name(self.workflow)

    @property
    def id(self) -> str:
        parts = [self.workflow_name, self.step.name, self.phase, self.fault.value]
        return "-".join([*parts, self.decision.value] if self.decision else parts)


def injected_error(fault: Fault) -> str:
    """The error class the fault plan raises for `fault`, as the saga reports it."""
    plan = parse_faults(f"probe={RULE[fault]}")
    try:
        plan.before_effect("any", "probe", Phase.ACTION, 1, frozenset())
        plan.after_effect("any", "probe", Phase.ACTION, 1, frozenset())
    except FundsagaError as err:
        return type(err).__name__
    raise AssertionError(f"{fault} injects no error")


def _undone(steps: Iterable[StepDefinition[Any]]) -> tuple[tuple[str, str], ...]:
    """The compensations of `steps` in LIFO order, each succeeding."""
    return tuple((s.name, COMPENSATED) for s in reversed(list(steps)) if s.compensation)


def _action_case(saga: type[SagaWorkflow], index: int, fault: Fault) -> MatrixCase:
    steps = saga.definition.steps
    step = steps[index]
    if fault is Fault.TIMEOUT_ONCE:
        expected = Expected(
            status=SagaStatus.COMPLETED,
            failure=None,
            attempts=tuple(2 if i == index else 1 for i in range(len(steps))),
            compensations=(),
            audit=(),
        )
    else:
        business = fault is Fault.BUSINESS
        tried = 1 if business else step.action_retry.maximum_attempts
        reason = "business_error" if business else "retries_exhausted"
        expected = Expected(
            status=SagaStatus.COMPENSATED,
            failure=(step.name, reason, injected_error(fault), tried),
            attempts=(1,) * index + (tried,),
            compensations=_undone(steps[: index + 1]),
            audit=(AuditKind.TERMINAL,),
        )
    return MatrixCase(
        workflow=saga,
        step_index=index,
        phase=Phase.ACTION,
        fault=fault,
        decision=None,
        faults=f"{step.name}={RULE[fault]}",
        expected=expected,
    )


def _compensation_case(
    saga: type[SagaWorkflow], index: int, fault: Fault, decision: Decision | None
) -> MatrixCase:
    steps = saga.definition.steps
    step, last = steps[index], steps[-1]
    tried_last = last.action_retry.maximum_attempts
    above, below = _undone(steps[index + 1 :]), _undone(steps[:index])
    common: dict[str, Any] = {
        "failure": (
            last.name,
            "retries_exhausted",
            injected_error(Fault.TIMEOUT_ALWAYS),
            tried_last,
        ),
        "attempts": (1,) * (len(steps) - 1) + (tried_last,),
    }
    if decision is None:
        expected = Expected(
            status=SagaStatus.COMPENSATED,
            compensations=(*above, (step.name, COMPENSATED), *below),
            audit=(AuditKind.TERMINAL,),
            **common,
        )
    else:
        retry = decision is Decision.RETRY
        final = SagaStatus.COMPENSATED if retry else SagaStatus.RESOLVED
        expected = Expected(
            status=final,
            compensations=(
                *above,
                (step.name, FAILED),
                (step.name, COMPENSATED if retry else RESOLVED_BY_OPERATOR),
                *below,
            ),
            audit=(
                AuditKind.NEEDS_ATTENTION,
                AuditKind.OPERATOR_RETRY if retry else AuditKind.OPERATOR_RESOLVE,
                AuditKind.TERMINAL,
            ),
            operator_sees=SagaStatus.COMPENSATING if below else final,
            **common,
        )
    return MatrixCase(
        workflow=saga,
        step_index=index,
        phase=Phase.COMPENSATION,
        fault=fault,
        decision=decision,
        faults=f"{last.name}={RULE[Fault.TIMEOUT_ALWAYS]};{step.name}.{Phase.COMPENSATION}={RULE[fault]}",
        expected=expected,
    )


def cases_for(saga: type[SagaWorkflow]) -> list[MatrixCase]:
    cases: list[MatrixCase] = []
    for index, step in enumerate(saga.definition.steps):
        cases += [_action_case(saga, index, fault) for fault in Fault]
        if step.compensation is None:
            continue
        for fault in Fault:
            parks = fault is not Fault.TIMEOUT_ONCE
            for decision in list(Decision) if parks else [None]:
                cases.append(_compensation_case(saga, index, fault, decision))
    return cases


def matrix(workflows: Sequence[type[SagaWorkflow]]) -> list[MatrixCase]:
    return [case for saga in workflows for case in cases_for(saga)]
