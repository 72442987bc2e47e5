"""`docs/transfer-input.md` says what the workflow does with the `SagaType` search attribute: a
start from another SDK or the `temporal` CLI that leaves it out still finds its saga by type,
whether the saga runs its steps or is rejected before the first."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaOutcome, SagaStatus, parse_money
from sagas.engine import SAGA_TYPE
from sagas.registry import built_in_registry
from sagas.testing import directory_audit_store, new_task_queue, saga_worker, sqlite_ledger

pytestmark = pytest.mark.e2e
DOC = Path(__file__).resolve().parents[2] / "docs" / "transfer-input.md"


def documented_saga_type_row() -> str:
    row = re.search(r"^\| Search attribute `SagaType` .*$", DOC.read_text(), re.MULTILINE)
    assert row is not None
    return row.group(0)


def test_the_doc_says_the_workflow_sets_saga_type() -> None:
    assert "the workflow sets it when it starts" in documented_saga_type_row()


@pytest.mark.parametrize(
    ("amount", "status"), [("12.00", SagaStatus.COMPLETED), ("-5", SagaStatus.REJECTED)]
)
async def test_a_start_without_saga_type_gets_it_from_the_workflow(
    dev_env: WorkflowEnvironment, tmp_path: Path, amount: str, status: SagaStatus
) -> None:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("acc-a", "EUR", opening_balance=parse_money("50.00", "EUR"))
    ledger.open_account("acc-b", "EUR")
    queue = new_task_queue()
    key = f"raw-{uuid.uuid4().hex[:8]}"
    request = {
        "idempotency_key": key,
        "source_account": "acc-a",
        "destination_account": "acc-b",
        "currency": "EUR",
        "amount": amount,
    }
    audit = directory_audit_store(tmp_path / "audit")
    transfer = built_in_registry().get("transfer")
    async with saga_worker(dev_env, [transfer], ledger, audit, task_queue=queue):
        handle = await dev_env.client.start_workflow(
            "TransferWorkflow",
            request,
            id=f"transfer-{key}",
            task_queue=queue,
            result_type=SagaOutcome,
        )
        outcome = await handle.result()
        described = await handle.describe()
    assert outcome.status is status
    assert described.typed_search_attributes.get(SAGA_TYPE) == "transfer"
