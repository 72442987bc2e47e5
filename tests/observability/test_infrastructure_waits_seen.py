"""A saga waiting out a fault of the infrastructure, as an operator sees it on a real dev server:
the collector counts it with the age of its wait, `sagas list --waiting` finds it, and once the
fault passes it completes by itself and is counted no more."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults, parse_money
from sagas.client import FundsagaClient
from sagas.engine import SAGA_WAITING_ON
from sagas.registry import built_in_registry
from sagas.servers import Collection, SagaTypeBacklog, VisibilityCollector
from sagas.testing import (
    assert_eventually,
    directory_audit_store,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
)

TRANSFER = built_in_registry().get("transfer")
DATABASE_DOWN = "credit=transient(DatabaseBusyError)*12"
"""Three runs of four quick attempts fail, so the saga waits 1 s, 2 s and 4 s, then goes on."""


def transfer_backlog(collection: Collection) -> SagaTypeBacklog:
    return next(b for b in collection.backlogs if b.saga_type == "transfer")


async def test_a_waiting_saga_is_counted_listed_and_goes_on_by_itself(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    queue = new_task_queue()
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("10.00", "EUR"))
    ledger.open_account("bob", "EUR")
    client = FundsagaClient(dev_env.client, queue, ledger)
    collector = VisibilityCollector(dev_env.client, queue, ["transfer"], None)
    key = f"w-{uuid.uuid4().hex[:10]}"
    worker = saga_worker(
        dev_env,
        [TRANSFER],
        ledger,
        directory_audit_store(tmp_path / "audit"),
        task_queue=queue,
        faults=parse_faults(DATABASE_DOWN),
    )
    async with worker:
        await client.start(
            "transfer",
            {
                "idempotency_key": key,
                "source_account": "alice",
                "destination_account": "bob",
                "amount": "1.00",
                "currency": "EUR",
            },
        )

        saga = client.saga("transfer", key)

        async def counted_waiting() -> Collection:
            collection = await collector.collect(datetime.now(UTC), check_ledger=False)
            assert transfer_backlog(collection).waiting_on_infrastructure == 1
            return collection

        waiting = transfer_backlog(await assert_eventually(counted_waiting))
        listed = await client.list_sagas("transfer", waiting=True)
        view = await saga.view()
        described = await dev_env.client.get_workflow_handle(saga.saga_id).describe()
        outcome = await saga.outcome()
        after = transfer_backlog(await collector.collect(datetime.now(UTC), check_ledger=False))

    assert timedelta() <= waiting.oldest_infrastructure_wait < timedelta(minutes=1)
    assert [saga_id for saga_id, _, _ in listed] == [saga.saga_id]
    assert described.typed_search_attributes.get(SAGA_WAITING_ON) == "DatabaseBusyError"
    assert (view.status, view.waiting_on) == (SagaStatus.RUNNING, "DatabaseBusyError")
    assert view.waiting_since is not None
    assert outcome.status is SagaStatus.COMPLETED
    assert ledger.account("bob").balance.minor == 100
    assert (after.waiting_on_infrastructure, after.oldest_infrastructure_wait) == (0, timedelta())
    assert await client.list_sagas("transfer", waiting=True) == []
