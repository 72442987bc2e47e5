"""The external payout's fault matrix, from the testing kit, against the provider simulator:
backward recovery before `submit`, forward recovery from it on (the operator retries the
parked step), and the submit's inquiry finding a payout the provider took. No callback
reaches these workers: `settle` asks the provider once its wait ends."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.testing import FaultMatrix, MatrixCase
from tests.payouts.scenario import PAYOUT_SCENARIO
from tests.provider.http import call

pytestmark = pytest.mark.long

MATRIX = FaultMatrix(PAYOUT_SCENARIO)


@pytest.fixture(scope="module", autouse=True)
def settles_at_once(provider: str) -> None:
    rule = {"key": "*", "behaviour": "settle-callback", "callbacks": 0, "settle_after_seconds": 0}
    assert call(f"{provider}/scenarios", "POST", rule).status == 201


@pytest.mark.parametrize("case", MATRIX.cases, ids=str)
async def test_fault_matrix(
    case: MatrixCase, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    assert await MATRIX.check_in(case, time_skipping_env, tmp_path) == []
