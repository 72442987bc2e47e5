"""The FX transfer's fault matrix, from the testing kit."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.testing import FaultMatrix, MatrixCase
from tests.fx.scenario import FX_SCENARIO

pytestmark = pytest.mark.slow

MATRIX = FaultMatrix(FX_SCENARIO)


@pytest.mark.parametrize("case", MATRIX.cases, ids=str)
async def test_fault_matrix(
    case: MatrixCase, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    assert await MATRIX.check_in(case, time_skipping_env, tmp_path) == []
