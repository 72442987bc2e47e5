"""Record the saga histories of tests/replay/scenarios.py, for the determinism guard.

    .venv/bin/python -m tooling.record_histories

Starts its own dev server, a worker with the real activities on a throw-away SQLite ledger,
runs one saga per workflow type and outcome and writes tests/replay/histories/<workflow
id>.json. Run it only when a workflow change is deliberate (see docs/determinism.md).
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from pathlib import Path

from sagas import SagaStatus, parse_faults, parse_money
from sagas.app import FundsagaClient, build_worker, start_dev_server, transfer_workflow_id
from sagas.audit import AuditKeys, SigningKey, open_audit_store
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_temporal import workflow_name
from tests.matrix.rig import ClearableFaults
from tests.replay.scenarios import HISTORIES, SCENARIOS, Handle, Scenario, history_key
from workflows import ALL_WORKFLOWS


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
        view = await client.view(key)
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
        await client.outcome(key)
    history = await handle.fetch_history()
    path = HISTORIES / f"{transfer_workflow_id(key)}.json"
    path.write_text(history.to_json() + "\n")
    return path


async def main() -> None:
    HISTORIES.mkdir(exist_ok=True)
    env = await start_dev_server(port=None, ui_port=None)
    with tempfile.TemporaryDirectory() as scratch:
        ledger = open_ledger(Path(scratch))
        store = open_audit_store(
            f"dir:{Path(scratch) / 'audit'}", AuditKeys.for_writer(SigningKey.generate())
        )
        async with env:
            for number, (saga, scenario) in enumerate(itertools.product(ALL_WORKFLOWS, SCENARIOS)):
                faults = ClearableFaults(parse_faults(scenario.faults).rules)
                task_queue = f"replay-{number}"
                async with build_worker(env.client, task_queue, ledger, store, faults):
                    client = FundsagaClient(
                        env.client, task_queue, ledger, workflow_type=workflow_name(saga)
                    )
                    print(f"recorded {await record(scenario, client, faults)}")
        store.close_connections()
        ledger.close_connections()


if __name__ == "__main__":
    asyncio.run(main())
