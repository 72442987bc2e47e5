"""A reader follows one step of a saga from the runtime to its ledger effect in five files.

Measured, not asserted by hand: each step's ledger write (an insert, or release's hold update)
is refused, and the project files on the stack are counted on both sides, where the runtime
issues the step's activity command and where the activity's effect reaches the database.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from temporalio import activity, workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner

from sagas import InsufficientFundsError, SagaStatus, parse_money
from sagas.audit import open_audit_store
from sagas.client import FundsagaClient, SagaHandle
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.testing import assert_eventually, dev_identity, resolve_by_two
from sagas.transfer import TRANSFER_SAGA
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_temporal import new_task_queue

REPO = Path(__file__).resolve().parents[2]
MAX_FILES = 5
LEDGER_WRITES = (
    "INSERT INTO posting",
    "INSERT INTO journal_entry",
    "INSERT INTO hold",
    "UPDATE hold",
)


async def parked(saga: SagaHandle) -> None:
    assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION


def project_files(stack: traceback.StackSummary) -> set[str]:
    """The project's own files on a stack: not the tests, not installed packages."""
    files = {
        Path(frame.filename).resolve() for frame in stack if not frame.filename.startswith("<")
    }
    return {
        str(path.relative_to(REPO))
        for path in files
        if path.is_relative_to(REPO) and path.parts[len(REPO.parts)] not in ("tests", ".venv")
    }


class StepPath:
    """Stacks of one step: where its command is issued, and where its effect is refused."""

    def __init__(self, step: str) -> None:
        self.activity_type = f"transfer.{step}"
        self.issued: traceback.StackSummary | None = None
        self.refused: traceback.StackSummary | None = None

    def issue(self, real: Any) -> Any:
        def recording(activity_type: str, *args: Any, **kwargs: Any) -> Any:
            if activity_type == self.activity_type:
                self.issued = traceback.extract_stack()
            return real(activity_type, *args, **kwargs)

        return recording

    def refuse(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        in_step = activity.in_activity() and activity.info().activity_type == self.activity_type
        if in_step and statement.lstrip().startswith(LEDGER_WRITES):
            self.refused = traceback.extract_stack()
            raise InsufficientFundsError("refused at the ledger write, to measure the path")


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    upgrade_database(url)
    instance = Ledger.from_url(url)
    instance.open_account("acc-a", "EUR", opening_balance=parse_money("500.00", "EUR"))
    instance.open_account("acc-b", "EUR")
    yield instance
    instance.close_connections()


@pytest.mark.parametrize("step", [step.name for step in TRANSFER_SAGA.steps])
async def test_a_step_reaches_its_ledger_effect_through_five_files_at_most(
    time_skipping_env: WorkflowEnvironment,
    ledger: Ledger,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
) -> None:
    path = StepPath(step)
    monkeypatch.setattr(workflow, "execute_activity", path.issue(workflow.execute_activity))
    event.listen(ledger.engine, "before_cursor_execute", path.refuse)
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    queue = new_task_queue()
    worker = build_worker(
        time_skipping_env.client,
        queue,
        ledger,
        store,
        workflow_runner=UnsandboxedWorkflowRunner(),
        operators=dev_identity().check(),
    )
    request = {
        "idempotency_key": f"path-{step}",
        "source_account": "acc-a",
        "destination_account": "acc-b",
        "amount": "10.00",
        "currency": "EUR",
    }
    pivot = TRANSFER_SAGA.step(step).pivot
    async with worker:
        client = FundsagaClient(time_skipping_env.client, queue, ledger)
        await client.start("transfer", request)
        saga = client.saga("transfer", request["idempotency_key"])
        if pivot:  # the refused pivot parks on its step; resolving closes the saga
            await assert_eventually(lambda: parked(saga), timeout=timedelta(seconds=60))
            failure = (await saga.view()).failure
            now = await time_skipping_env.get_current_time()  # its workflows' clock
            await resolve_by_two(saga, "refused on purpose", issued_at=now)
        outcome = await saga.outcome()
    store.close_connections()
    if not pivot:
        failure = outcome.failure

    assert outcome.status is (SagaStatus.RESOLVED if pivot else SagaStatus.COMPENSATED)
    assert failure is not None
    assert failure.step_name == step
    assert path.issued is not None
    assert path.refused is not None
    files = project_files(path.issued) | project_files(path.refused)
    assert "activities/transfer.py" in files
    assert len(files) <= MAX_FILES, sorted(files)
