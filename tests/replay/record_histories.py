"""Record TransferWorkflow histories in every outcome, for the determinism guard.

    .venv/bin/python -m tests.replay.record_histories

Starts its own dev server, a worker with the real activities on a throw-away SQLite ledger,
runs one saga per workflow type and outcome and writes tests/replay/histories/<workflow
id>.json. Run it only when a workflow change is deliberate (see docs/determinism.md).
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle

from sagas import OperatorAction, SagaOutcome, SagaStatus, parse_faults, parse_money
from sagas._db import upgrade_database
from sagas.app import FundsagaClient, build_worker, start_dev_server, transfer_workflow_id
from sagas.audit import open_audit_store
from sagas.ledger import Ledger
from tests.fixtures_temporal import workflow_name
from tests.matrix._rig import ClearableFaults
from workflows import ALL_WORKFLOWS

HISTORIES = Path(__file__).parent / "histories"
PARKS = "capture.compensation=business"
"""Undoing the capture is refused: the saga parks in NEEDS_ATTENTION."""

Handle = WorkflowHandle[Any, SagaOutcome]


@dataclass(frozen=True)
class Scenario:
    outcome: str
    destination: str
    faults: str = ""
    operator: Callable[[FundsagaClient, str], Awaitable[object]] | None = None
    """What an operator does once the saga has parked."""


async def _resolve(client: FundsagaClient, key: str) -> object:
    return await client.resolve(key, OperatorAction(operator="recorder", note="undone by hand"))


async def _retry(client: FundsagaClient, key: str) -> object:
    return await client.retry_compensation(key, OperatorAction(operator="recorder"))


SCENARIOS = [
    Scenario(outcome="completed", destination="open"),
    Scenario(outcome="compensated", destination="frozen"),
    Scenario(outcome="needs-attention", destination="frozen", faults=PARKS),
    Scenario(outcome="resolved", destination="frozen", faults=PARKS, operator=_resolve),
    Scenario(outcome="retried", destination="frozen", faults=PARKS, operator=_retry),
]
"""One saga per outcome; `retried` is COMPENSATED after an operator's retry."""


def history_key(workflow_name: str, outcome: str) -> str:
    return f"replay-{workflow_name}-{outcome}"


def open_ledger(directory: Path) -> Ledger:
    url = f"sqlite:///{directory / 'fundsaga.db'}"
    upgrade_database(url)
    ledger = Ledger.from_url(url)
    ledger.open_account("source", "EUR", opening_balance=parse_money("1000.00", "EUR"))
    ledger.open_account("open", "EUR")
    ledger.open_account("frozen", "EUR")
    ledger.freeze("frozen")
    return ledger


async def wait_parked(client: FundsagaClient, handle: Handle, key: str) -> None:
    """Until the saga waits for the operator, its audit record written."""
    for _ in range(200):
        view = await client.state(key)
        pending = (await handle.describe()).raw_description.pending_activities
        if view.status is SagaStatus.NEEDS_ATTENTION and not pending:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{handle.id} never parked")


async def record(scenario: Scenario, client: FundsagaClient, faults: ClearableFaults) -> Path:
    key = history_key(client.workflow_type, scenario.outcome)
    handle = await client.start_transfer(
        {
            "idempotency_key": key,
            "source_account": "source",
            "destination_account": scenario.destination,
            "amount": "25.00",
            "currency": "EUR",
            "reference": f"replay {scenario.outcome}",
        }
    )
    if scenario.faults:
        await wait_parked(client, handle, key)
        faults.clear()
    if scenario.operator is not None:
        await scenario.operator(client, key)
    if scenario.outcome != "needs-attention":
        await client.wait(key)
    history = await handle.fetch_history()
    path = HISTORIES / f"{transfer_workflow_id(key)}.json"
    path.write_text(history.to_json() + "\n")
    return path


async def main() -> None:
    HISTORIES.mkdir(exist_ok=True)
    env = await start_dev_server(port=None, ui_port=None)
    with tempfile.TemporaryDirectory() as scratch:
        ledger = open_ledger(Path(scratch))
        store = open_audit_store(f"dir:{Path(scratch) / 'audit'}")
        async with env:
            for number, (saga, scenario) in enumerate(itertools.product(ALL_WORKFLOWS, SCENARIOS)):
                faults = ClearableFaults(parse_faults(scenario.faults).rules)
                task_queue = f"replay-{number}"
                async with build_worker(env.client, task_queue, ledger, store, faults):
                    client = FundsagaClient(
                        env.client, task_queue, ledger, workflow_type=workflow_name(saga)
                    )
                    print(f"recorded {await record(scenario, client, faults)}")
        store.close()
        ledger.close_connections()


if __name__ == "__main__":
    asyncio.run(main())
