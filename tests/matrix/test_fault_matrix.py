"""Every saga type, every step, action and compensation, failed every way in turn.

The cases come from the saga definitions in workflows.ALL_WORKFLOWS (see _cases.py); the
workers run the real activities on a freshly migrated ledger with FUNDSAGA_FAULTS rules.
"""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import WorkflowExecutionStatus

from sagas import SagaOutcome, SagaStatus
from sagas.audit import AuditStore
from sagas.engine import AuditKind
from sagas.ledger import Ledger
from tests.matrix._cases import MatrixCase, matrix
from tests.matrix._checks import audit_kinds, hold_findings, key_findings, money_in_the_system
from tests.matrix._scenarios import SCENARIOS
from tests.matrix.rig import MatrixRig
from workflows import ALL_WORKFLOWS

MATRIX = matrix(ALL_WORKFLOWS)


def failure_of(outcome: SagaOutcome) -> tuple[str | None, str, str, int] | None:
    failure = outcome.failure
    if failure is None:
        return None
    return (failure.step_name, failure.reason, failure.error_type, failure.attempts)


def test_every_saga_type_has_a_scenario_and_a_full_matrix() -> None:
    for saga in ALL_WORKFLOWS:
        definition = saga.definition
        assert definition.saga_type in SCENARIOS, f"add a Scenario for {definition.saga_type}"
        cases = [c for c in MATRIX if c.workflow is saga]
        steps = {c.step.name for c in cases}
        assert steps == {step.name for step in definition.steps}


@pytest.mark.parametrize("case", MATRIX, ids=lambda case: case.id)
async def test_fault_matrix(
    case: MatrixCase, rig: MatrixRig, matrix_ledger: Ledger, audit_store: AuditStore
) -> None:
    scenario = SCENARIOS[case.definition.saga_type]
    scenario.fund(matrix_ledger)
    funded = money_in_the_system(matrix_ledger)
    request = scenario.request(f"matrix-{uuid.uuid4().hex[:12]}")
    expected = case.expected

    run = await rig.run(case, request)
    outcome = run.outcome
    saga_id = outcome.saga_id

    assert outcome.status is expected.status
    assert failure_of(outcome) == expected.failure
    assert [(c.step_name, c.result) for c in outcome.compensations] == list(expected.compensations)
    assert [s.attempt for s in matrix_ledger.snapshots(saga_id)] == list(expected.attempts)
    assert run.closed_as is WorkflowExecutionStatus.COMPLETED  # a business end is no failure
    completed = expected.status is SagaStatus.COMPLETED
    if expected.operator_sees is not None:
        assert run.parked is not None
        assert run.parked.compensation_stack[-1].step_name == case.step.name
        assert run.running_while_parked
        assert run.audit_while_parked == expected.audit[:1]
        assert run.operator_saw is expected.operator_sees

    assert matrix_ledger.check_invariants() == []
    assert money_in_the_system(matrix_ledger) == funded
    assert key_findings(matrix_ledger, case.definition, saga_id) == []
    assert hold_findings(matrix_ledger) == []
    assert matrix_ledger.net_effect(saga_id) == (
        scenario.completed_effect(request) if completed else {}
    )
    kinds = audit_kinds(audit_store, saga_id)
    assert kinds == expected.audit
    assert kinds.count(AuditKind.TERMINAL) == (0 if completed else 1)
    assert audit_store.verify().ok
