"""The kit's fault matrix of a saga with a pivot and inquiries: backward recovery before the
pivot, forward recovery from it on (the operator retries the parked step), and an inquiry
that finds a committed effect instead of acting again."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.testing import FaultMatrix, MatrixCase
from tests.pivot.scenario import PAYOUT_SCENARIO

MATRIX = FaultMatrix(PAYOUT_SCENARIO)


def test_steps_from_the_pivot_on_recover_forward_and_are_never_compensated() -> None:
    forward = {c.step.name for c in MATRIX.cases if c.decision and c.phase == "action"}
    compensated = {c.step.name for c in MATRIX.cases if c.phase == "compensation"}

    assert forward == {"send", "confirm"}
    assert compensated == {"debit"}


@pytest.mark.parametrize("case", MATRIX.cases, ids=str)
async def test_fault_matrix(
    case: MatrixCase, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    assert await MATRIX.check_in(case, time_skipping_env, tmp_path) == []
