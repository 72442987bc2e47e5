"""The fee collection's fault matrix, from the testing kit."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.testing import FaultMatrix, MatrixCase, directory_audit_store, sqlite_ledger
from tests.fees.scenario import FEE_SCENARIO

MATRIX = FaultMatrix(FEE_SCENARIO)


@pytest.mark.parametrize("case", MATRIX.cases, ids=str)
async def test_fault_matrix(
    case: MatrixCase, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    ledger = sqlite_ledger(tmp_path)
    store = directory_audit_store(tmp_path / "audit")
    try:
        assert await MATRIX.check(case, time_skipping_env, ledger, store) == []
    finally:
        store.close_connections()
        ledger.close_connections()
