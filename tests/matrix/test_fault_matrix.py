"""The transfer's fault matrix, from the testing kit: every step, action and compensation,
failed every way in turn, in both step modes, on the real activities."""

from __future__ import annotations

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore
from sagas.ledger import Ledger
from sagas.testing import FaultMatrix, MatrixCase
from tests.scenarios import TRANSFER_SCENARIO

pytestmark = pytest.mark.long

MATRIX = FaultMatrix(TRANSFER_SCENARIO)


def test_the_matrix_covers_every_step_of_both_workflow_types() -> None:
    definition = TRANSFER_SCENARIO.saga_type.definition
    for workflow in ("TransferWorkflow", "TransferLocalStepsWorkflow"):
        cases = [case for case in MATRIX.cases if case.workflow_name == workflow]
        assert {case.step.name for case in cases} == {step.name for step in definition.steps}
        # 4 action faults per step; 7 compensation cases per compensable step.
        compensable = sum(1 for step in definition.steps if step.compensation)
        assert len(cases) == 4 * len(definition.steps) + 7 * compensable


@pytest.mark.parametrize("case", MATRIX.cases, ids=str)
async def test_fault_matrix(
    case: MatrixCase,
    time_skipping_env: WorkflowEnvironment,
    matrix_ledger: Ledger,
    audit_store: AuditStore,
) -> None:
    assert await MATRIX.check(case, time_skipping_env, matrix_ledger, audit_store) == []
