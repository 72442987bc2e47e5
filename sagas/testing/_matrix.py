"""The fault matrix of a saga type, generated from its definition.

For each step, its action and then its compensation fail in turn with each Fault; the expected
final status, failure, snapshots, compensations and audit records follow from the definition.
A compensation only runs once the saga compensates, so its cases also make the last action
commit and time out on every attempt: every step has then taken effect and must be undone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sagas.engine import AuditKind, Phase, SagaDefinition, SagaStatus, StepDefinition, parse_faults
from sagas.foundations import FundsagaError, RetryClass, TransientError, error_class_by_name
from sagas.testing._matrix_case import Decision, Expected, Fault, MatrixCase
from sagas.testing._scenario import SagaScenario

RULE_KIND = {
    Fault.BUSINESS: "business",
    Fault.TRANSIENT: "transient",
    Fault.TIMEOUT_ONCE: "timeout*1",
    Fault.TIMEOUT_ALWAYS: "timeout",
}
"""Each fault as the kind part of a FUNDSAGA_FAULTS rule."""

COMPENSATED = "compensated"
FAILED = "failed"
RESOLVED = "resolved"


def fault_rule(saga_type: str, step: str, phase: Phase, fault: Fault) -> str:
    """A FUNDSAGA_FAULTS rule scoped to the saga type: other types on the worker are spared."""
    target = step if phase is Phase.ACTION else f"{step}.{phase.value}"
    return f"{saga_type}/{target}={RULE_KIND[fault]}"


def injected_error(fault: Fault) -> str:
    """The error class the fault plan raises for `fault`, as the saga reports it."""
    plan = parse_faults(fault_rule("probe-saga", "probe", Phase.ACTION, fault))
    try:
        plan.before_effect("probe-saga", "probe", Phase.ACTION, 1, frozenset())
        plan.after_effect("probe-saga", "probe", Phase.ACTION, 1, frozenset())
    except FundsagaError as err:
        return type(err).__name__
    raise AssertionError(f"{fault} injects no error")


def _attempts(step: StepDefinition[Any], fault: Fault) -> int:
    """How many attempts the action makes when `fault` fails each: its error's class's C + 1."""
    error = error_class_by_name(injected_error(fault))
    retry_class = RetryClass.TEMPORARY
    if error is not None and issubclass(error, TransientError):
        retry_class = error.retry_class
    spec = step.action_retry.for_class(retry_class)
    return spec.maximum_attempts if spec is not None else 1


def _undone(steps: Iterable[StepDefinition[Any]]) -> tuple[tuple[str, str], ...]:
    """The compensations of `steps` in LIFO order, each succeeding."""
    return tuple((s.name, COMPENSATED) for s in reversed(list(steps)) if s.compensation)


def _action_expected(
    definition: SagaDefinition[Any, Any], index: int, fault: Fault
) -> tuple[Expected, Decision | None]:
    """The end of a failing action, and the operator's decision when the saga parks on it."""
    steps = definition.steps
    step = steps[index]
    asks = step.inquiry is not None
    if fault is Fault.TIMEOUT_ONCE or (asks and fault is Fault.TIMEOUT_ALWAYS):
        # The retry finds the committed effect: by its key, or by asking first (then the step's
        # snapshot keeps the one attempt that acted).
        acted = 1 if asks else 2
        completed = Expected(
            status=SagaStatus.COMPLETED,
            failure=None,
            attempts=tuple(acted if i == index else 1 for i in range(len(steps))),
            compensations=(),
            audit=(),
        )
        return completed, None
    business = fault is Fault.BUSINESS
    tried = 1 if business else _attempts(step, fault)
    if definition.forward_only(index):
        # From the pivot on: park on the step; the operator retries it on a healthy worker.
        last = index == len(steps) - 1
        forward = Expected(
            status=SagaStatus.COMPLETED,
            failure=None,
            attempts=tuple(tried if i == index else 1 for i in range(len(steps))),
            compensations=(),
            audit=(AuditKind.NEEDS_ATTENTION, AuditKind.OPERATOR_RETRY),
            operator_sees=SagaStatus.COMPLETED if last else SagaStatus.RUNNING,
        )
        return forward, Decision.RETRY
    backward = Expected(
        status=SagaStatus.COMPENSATED,
        failure=(
            step.name,
            "business_error" if business else "retries_exhausted",
            injected_error(fault),
            tried,
        ),
        attempts=(1,) * index + (tried,),
        compensations=_undone(steps[: index + 1]),
        audit=(AuditKind.TERMINAL,),
    )
    return backward, None


def _trigger(definition: SagaDefinition[Any, Any]) -> tuple[int, Fault] | None:
    """The step whose failure makes every compensable step compensate, and how it fails: the
    last step before the pivot (or the last step), committing its effect and then timing out
    on every attempt, or refused at once when it has an inquiry (which would find the effect)."""
    pivot = definition.pivot_index
    index = len(definition.steps) - 1 if pivot is None else pivot - 1
    if index < 0:
        return None
    asks = definition.steps[index].inquiry is not None
    return index, Fault.BUSINESS if asks else Fault.TIMEOUT_ALWAYS


def _compensation_expected(
    definition: SagaDefinition[Any, Any],
    index: int,
    trigger: tuple[int, Fault],
    decision: Decision | None,
) -> Expected:
    steps = definition.steps
    step = steps[index]
    trigger_index, trigger_fault = trigger
    trigger_step = steps[trigger_index]
    business = trigger_fault is Fault.BUSINESS
    tried = 1 if business else _attempts(trigger_step, trigger_fault)
    above, below = _undone(steps[index + 1 : trigger_index + 1]), _undone(steps[:index])
    failure = (
        trigger_step.name,
        "business_error" if business else "retries_exhausted",
        injected_error(trigger_fault),
        tried,
    )
    attempts = (1,) * trigger_index + (tried,)
    if decision is None:
        return Expected(
            status=SagaStatus.COMPENSATED,
            failure=failure,
            attempts=attempts,
            compensations=(*above, (step.name, COMPENSATED), *below),
            audit=(AuditKind.TERMINAL,),
        )
    retry = decision is Decision.RETRY
    final = SagaStatus.COMPENSATED if retry else SagaStatus.RESOLVED
    return Expected(
        status=final,
        failure=failure,
        attempts=attempts,
        compensations=(
            *above,
            (step.name, FAILED),
            (step.name, COMPENSATED if retry else RESOLVED),
            *below,
        ),
        audit=(
            AuditKind.NEEDS_ATTENTION,
            *(
                (AuditKind.OPERATOR_RETRY,)
                if retry
                else (AuditKind.RESOLUTION_PROPOSED, AuditKind.RESOLUTION_APPROVED)
            ),
            AuditKind.TERMINAL,
        ),
        operator_sees=SagaStatus.COMPENSATING if below else final,
    )


def _cases_of(scenario: SagaScenario, workflow_class: type) -> list[MatrixCase]:
    definition: SagaDefinition[Any, Any] = getattr(
        workflow_class, "definition", scenario.saga_type.definition
    )
    base: dict[str, Any] = {
        "saga_type": scenario.name,
        "workflow": workflow_class,
        "definition": definition,
    }
    trigger = _trigger(definition)
    cases: list[MatrixCase] = []
    for index, step in enumerate(definition.steps):
        for fault in Fault:
            expected, decision = _action_expected(definition, index, fault)
            cases.append(
                MatrixCase(
                    **base,
                    step_index=index,
                    phase=Phase.ACTION,
                    fault=fault,
                    decision=decision,
                    faults=fault_rule(scenario.name, step.name, Phase.ACTION, fault),
                    expected=expected,
                )
            )
        if step.compensation is None or trigger is None or index > trigger[0]:
            continue  # the pivot and the steps after it are never compensated
        trigger_name = definition.steps[trigger[0]].name
        for fault in Fault:
            parks = fault is not Fault.TIMEOUT_ONCE
            for decision in list(Decision) if parks else [None]:
                rules = (
                    fault_rule(scenario.name, trigger_name, Phase.ACTION, trigger[1]),
                    fault_rule(scenario.name, step.name, Phase.COMPENSATION, fault),
                )
                cases.append(
                    MatrixCase(
                        **base,
                        step_index=index,
                        phase=Phase.COMPENSATION,
                        fault=fault,
                        decision=decision,
                        faults=";".join(rules),
                        expected=_compensation_expected(definition, index, trigger, decision),
                    )
                )
    return cases


def matrix_cases(scenario: SagaScenario) -> list[MatrixCase]:
    """Every case of every workflow class (step mode) the saga type registers."""
    cases = [
        case
        for workflow_class in scenario.saga_type.workflows.values()
        for case in _cases_of(scenario, workflow_class)
    ]
    if scenario.expected_end is None:
        return cases
    return [replace(case, expected=scenario.expected_end(case)) for case in cases]
