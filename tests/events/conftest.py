from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.client import FundsagaClient
from sagas.registry import SagaRegistry
from sagas.testing import directory_audit_store, new_task_queue, saga_worker, sqlite_ledger
from tests.events import SETTLE


@pytest.fixture
async def client(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[FundsagaClient]:
    """A client of a worker running the test saga `test-settle`."""
    ledger = sqlite_ledger(tmp_path)
    store = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    async with saga_worker(time_skipping_env, [SETTLE], ledger, store, task_queue=queue):
        yield FundsagaClient(
            time_skipping_env.client, queue, ledger, registry=SagaRegistry([SETTLE])
        )
    store.close_connections()
    ledger.close_connections()
