"""The payout batch's replay histories: one batch with a compensated item, and a batch that
continued as new (each of its runs is a history of its own)."""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from sagas.client import FundsagaClient
from sagas.registry import SagaRegistry
from sagas.servers import WebhookSecrets, serve_webhooks
from sagas.testing import (
    directory_audit_store,
    load_history,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
)
from sagas.worker import saga_workflow_runner
from tests.payouts.scenario import BATCH_TYPE, PAYOUT_TYPE, fund
from tests.payouts.small_batch import SMALL_BATCH_TYPE

BATCH_TYPES = (BATCH_TYPE, SMALL_BATCH_TYPE)
BATCH_WORKFLOWS = [cls for saga_type in BATCH_TYPES for cls in saga_type.workflows.values()]
SETTLES = {
    "account": "ben-settles",
    "behaviour": "settle-callback",
    "callbacks": 1,
}
DECLINES = {"account": "ben-declines", "behaviour": "decline", "reason": "account closed"}
_ITEM = {"account": "customer", "currency": "EUR", "amount": "5.00"}
RECORDINGS = {
    BATCH_TYPE.name: [
        {**_ITEM, "beneficiary": "ben-settles"},
        {**_ITEM, "beneficiary": "ben-declines"},
    ],
    SMALL_BATCH_TYPE.name: [{**_ITEM, "beneficiary": "ben-settles"}] * 3,
}


def batch_histories(directory: Path) -> list[Path]:
    return sorted(directory.glob("*batch-replay-run*.json"))


async def record_batches(
    env: WorkflowEnvironment, directory: Path, scratch: Path, webhook_secret: str
) -> list[Path]:
    """Run each recording and write every run's history (the provider's scenarios set up
    first; the settlement callbacks come through a webhook receiver of its own)."""
    ledger = sqlite_ledger(scratch)
    fund(ledger)
    store = directory_audit_store(scratch / "audit")
    queue = new_task_queue()
    saga_types = [PAYOUT_TYPE, *BATCH_TYPES]
    client = FundsagaClient(env.client, queue, ledger, registry=SagaRegistry(saga_types))
    written: list[Path] = []
    secrets = WebhookSecrets({"payout": webhook_secret})
    async with serve_webhooks(client, secrets) as receiver:
        os.environ["FUNDSAGA_WEBHOOK_URL"] = receiver.url
        async with saga_worker(env, saga_types, ledger, store, task_queue=queue):
            for batch_type, items in RECORDINGS.items():
                key = "replay"
                await client.start(batch_type, {"idempotency_key": key, "items": items})
                saga = client.saga(batch_type, key)
                await saga.workflow.result()
                written += await _write_runs(env, saga.saga_id, directory)
    return written


async def _write_runs(env: WorkflowEnvironment, workflow_id: str, directory: Path) -> list[Path]:
    """Every run's history, walking back from the latest, written first run first."""
    histories: list[WorkflowHistory] = []
    run_id: str | None = None
    while True:
        history = await env.client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()
        histories.insert(0, history)
        started = history.events[0].workflow_execution_started_event_attributes
        if not started.continued_execution_run_id:
            break
        run_id = started.continued_execution_run_id
    written = []
    for number, history in enumerate(histories, start=1):
        path = directory / f"{workflow_id}-run{number}.json"
        path.write_text(history.to_json())
        written.append(path)
    return written


async def replay_batch(path: Path) -> None:
    replayer = Replayer(
        workflows=BATCH_WORKFLOWS,
        data_converter=pydantic_data_converter,
        workflow_runner=saga_workflow_runner(*sorted({c.__module__ for c in BATCH_WORKFLOWS})),
    )
    await replayer.replay_workflow(load_history(path))
