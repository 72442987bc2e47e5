"""A saga type's fault matrix: its cases, and what each case leaves that a user would object to."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore
from sagas.engine import AuditKind, Phase, SagaOutcome, SagaRequest, SagaStatus, SagaView
from sagas.ledger import Ledger
from sagas.testing._environments import directory_audit_store, sqlite_ledger
from sagas.testing._ledger_checks import (
    conservation_findings,
    customer_money,
    hold_findings,
    key_findings,
    money_on,
)
from sagas.testing._matrix import matrix_cases
from sagas.testing._matrix_case import MatrixCase
from sagas.testing._matrix_run import CaseRun, run_case
from sagas.testing._scenario import SagaScenario


@dataclass(frozen=True)
class FaultMatrix:
    """Every step of a saga type, action and compensation, failed every way in turn.

    `check(case, ...)` runs one case on a worker with the saga type's real activities and
    returns its findings: each way the end differs from the expected one, and each broken
    invariant of the ledger and the audit trail. An empty list is a pass.
    """

    scenario: SagaScenario
    cases: tuple[MatrixCase, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(matrix_cases(self.scenario)))

    async def check_in(
        self, case: MatrixCase, env: WorkflowEnvironment, directory: Path
    ) -> list[str]:
        """`check` on a fresh SQLite ledger and audit store of their own in `directory`."""
        ledger = sqlite_ledger(directory)
        store = directory_audit_store(directory / "audit")
        try:
            return await self.check(case, env, ledger, store)
        finally:
            store.close_connections()
            ledger.close_connections()

    async def check(
        self,
        case: MatrixCase,
        env: WorkflowEnvironment,
        ledger: Ledger,
        audit_store: AuditStore,
    ) -> list[str]:
        """Run `case` on a fresh ledger (the scenario funds it) and the time-skipping `env`."""
        scenario = self.scenario
        scenario.fund(ledger)
        request = scenario.request(f"matrix-{uuid.uuid4().hex[:12]}")
        declared = set(scenario.money_leaves_through(request))
        customers, on_declared = customer_money(ledger), money_on(ledger, declared)
        run = await run_case(env, scenario, case, request, ledger, audit_store)
        saga_id = run.outcome.saga_id
        completed = case.expected.status is SagaStatus.COMPLETED
        effect = dict(scenario.completed_effect(request)) if completed else {}
        kinds = tuple(record.kind for record in audit_store.records(saga_id=saga_id))
        return [
            *_end_findings(case, run, [s.attempt for s in ledger.snapshots(saga_id)]),
            *[f"ledger: {finding}" for finding in ledger.check_invariants()],
            *conservation_findings(
                customers, on_declared, customer_money(ledger), money_on(ledger, declared)
            ),
            *key_findings(ledger, saga_id, scenario.key_scheme(saga_id, case.definition)),
            *hold_findings(ledger),
            *_differs("net effect", effect, ledger.net_effect(saga_id)),
            *_differs("audit records", case.expected.audit, kinds),
            *_differs(
                "terminal audit records", 0 if completed else 1, kinds.count(AuditKind.TERMINAL)
            ),
            *(() if audit_store.verify().ok else ("audit trail: does not verify",)),
            *_external_findings(scenario, request, run.outcome),
        ]


def _external_findings(
    scenario: SagaScenario, request: SagaRequest, outcome: SagaOutcome
) -> list[str]:
    """What the scenario's check of the effects outside the ledger finds, once the saga ended."""
    if scenario.external_effects is None:
        return []
    try:
        return [f"outside the ledger: {f}" for f in scenario.external_effects(request, outcome)]
    except AssertionError as failed:  # its message's first line: pytest appends the expression
        return [f"outside the ledger: {(str(failed) or 'assertion failed').splitlines()[0]}"]


def _failure_of(outcome: SagaOutcome) -> tuple[str | None, str, str, int] | None:
    failure = outcome.failure
    if failure is None:
        return None
    return (failure.step_name, failure.reason, failure.error_type, failure.attempts)


def _end_findings(case: MatrixCase, run: CaseRun, attempts: list[int]) -> list[str]:
    expected, outcome = case.expected, run.outcome
    findings = [
        *_differs("status", expected.status, outcome.status),
        *_differs("failure", expected.failure, _failure_of(outcome)),
        *_differs(
            "compensations",
            list(expected.compensations),
            [(c.step_name, c.result) for c in outcome.compensations],
        ),
        *_differs("snapshot attempts", list(expected.attempts), attempts),
        # A business end is no workflow failure: operators tell the two apart.
        *_differs("workflow closed as", WorkflowExecutionStatus.COMPLETED, run.closed_as),
    ]
    if expected.operator_sees is not None:
        parked = run.parked
        findings += [
            *_differs("parked on", case.step.name, _parked_on(case, parked)),
            *_differs("running while parked", True, run.running_while_parked),
            *_differs("audit while parked", expected.audit[:1], run.audit_while_parked),
            *_differs("operator saw", expected.operator_sees, run.operator_saw),
        ]
    return findings


def _parked_on(case: MatrixCase, parked: SagaView | None) -> str | None:
    """The step the saga waited on: its failed action, or its compensation on top of the stack."""
    if parked is None:
        return None
    if case.phase is Phase.ACTION:
        return parked.failure.step_name if parked.failure else None
    stack = parked.compensation_stack
    return stack[-1].step_name if stack else None


def _differs(what: str, expected: object, actual: object) -> list[str]:
    if expected == actual:
        return []
    return [f"{what}: expected {_plain(expected)!r}, got {_plain(actual)!r}"]


def _plain(value: object) -> object:
    """Enum members as their values, so that a finding reads as the saga's data does."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return type(value)(_plain(item) for item in value)
    return value
