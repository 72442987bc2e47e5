"""Payout batches: each item its own payout saga, bounded concurrency, continue-as-new, one
failed item leaving the others alone (time-skipping server, the simulator as its own service)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from pydantic import TypeAdapter
from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError

from sagas import InvalidRequestError, SagaStatus
from sagas.cli import outcome_shown
from sagas.client import SagaHandle, saga_id
from sagas.engine import (
    MONEY_MEMO,
    BatchItemOutcome,
    BatchItemStatus,
    BatchOutcome,
    BatchView,
    SagaMoney,
)
from sagas.ledger import funding_account_id
from sagas.payouts import EXTERNAL_PAYOUT
from sagas.testing import assert_eventually
from tests.payouts.conftest import Rig
from tests.payouts.small_batch import SMALL_BATCH_DEFINITION


def item(beneficiary: str, amount: str = "10.00") -> dict[str, Any]:
    return {"account": "customer", "beneficiary": beneficiary, "currency": "EUR", "amount": amount}


async def finished(batch: SagaHandle) -> BatchOutcome:
    outcome = await batch.outcome()
    assert isinstance(outcome, BatchOutcome)
    return outcome


async def runs_of(rig: Rig, workflow_id: str) -> list[WorkflowExecutionStatus]:
    """How each run of the workflow ended, first run first, walking back from the latest."""
    statuses: list[WorkflowExecutionStatus] = []
    run_id: str | None = None
    while True:
        handle = rig.env.client.get_workflow_handle(workflow_id, run_id=run_id)
        described = await handle.describe()
        assert described.status is not None
        statuses.insert(0, described.status)
        history = await handle.fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        if not started.continued_execution_run_id:
            return statuses
        run_id = started.continued_execution_run_id


async def item_intervals(rig: Rig, key: str, count: int) -> list[tuple[datetime, datetime]]:
    intervals = []
    for number in range(1, count + 1):
        described = await rig.env.client.get_workflow_handle(
            saga_id(EXTERNAL_PAYOUT, f"{key}-{number}")
        ).describe()
        assert described.close_time is not None
        intervals.append((described.start_time, described.close_time))
    return intervals


def most_at_once(intervals: list[tuple[datetime, datetime]]) -> int:
    edges = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    running, most = 0, 0
    for _, change in edges:  # an end sorts before a start at the same instant
        running += change
        most = max(most, running)
    return most


async def test_one_failed_item_does_not_undo_the_others(rig: Rig) -> None:
    settles = rig.behave(behaviour="settle-callback", callbacks=1)
    declines = rig.behave(behaviour="decline", reason="beneficiary account closed")
    items = [item(settles), item(settles), item(declines), item(settles), item(settles)]
    batch = await rig.start_batch(items, concurrency=2)

    outcome = await finished(batch)

    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.saga_id == f"payout-batch-{batch.idempotency_key}"
    assert [(i.number, i.saga_id, i.status) for i in outcome.items] == [
        (n, f"payout-{batch.idempotency_key}-{n}", status)
        for n, status in enumerate(
            [BatchItemStatus.COMPLETED] * 2
            + [BatchItemStatus.COMPENSATED]
            + [BatchItemStatus.COMPLETED] * 2,
            start=1,
        )
    ]
    declined = outcome.items[2].failure
    assert declined is not None
    assert "beneficiary account closed" in declined.message
    assert outcome.counts() == {"COMPENSATED": 1, "COMPLETED": 4}
    assert rig.balance("customer") == "60.00 EUR"  # four payouts of 10.00 left, one returned
    assert rig.balance(funding_account_id("EUR")) == "-60.00 EUR"
    assert rig.ledger.account("customer").held.minor == 0
    assert most_at_once(await item_intervals(rig, batch.idempotency_key, 5)) == 2


async def test_the_batch_writes_an_audit_record_listing_every_item(rig: Rig) -> None:
    settles = rig.behave(behaviour="settle-callback", callbacks=1)
    declines = rig.behave(behaviour="decline", reason="unknown beneficiary")
    batch = await rig.start_batch([item(settles), item(declines)])

    await finished(batch)

    records = list(rig.store.records(saga_id=batch.saga_id))
    assert [r.kind for r in records] == ["batch_completed"]
    listed = records[0].payload
    assert listed["counts"] == {"COMPENSATED": 1, "COMPLETED": 1}
    items = TypeAdapter(list[BatchItemOutcome]).validate_python(listed["items"])
    assert [(i.number, i.saga_id, i.status) for i in items] == [
        (1, f"payout-{batch.idempotency_key}-1", BatchItemStatus.COMPLETED),
        (2, f"payout-{batch.idempotency_key}-2", BatchItemStatus.COMPENSATED),
    ]
    assert rig.store.verify().ok


async def test_each_item_shows_its_own_money(rig: Rig) -> None:
    settles = rig.behave(behaviour="settle-callback", callbacks=1)
    batch = await rig.start_batch([item(settles, "12.00"), {**item(settles), "reference": "r-2"}])
    await finished(batch)

    shown = [
        (await rig.client.saga(EXTERNAL_PAYOUT, f"{batch.idempotency_key}-{n}").read()).listed
        for n in (1, 2)
    ]

    assert [(s.money.amount_text(), s.money.parties_text(), s.money.reference) for s in shown] == [
        ("12.00 EUR", f"customer → {settles}", None),
        ("10.00 EUR", f"customer → {settles}", "r-2"),
    ]
    memo = await (
        await rig.client.saga(EXTERNAL_PAYOUT, f"{batch.idempotency_key}-1").describe()
    ).memo()
    assert SagaMoney.from_memo(memo[MONEY_MEMO]) == shown[0].money  # kept by the batch at start


async def test_a_batch_larger_than_one_run_continues_as_new(rig: Rig) -> None:
    settles = rig.behave(behaviour="settle-callback", callbacks=1)
    batch = await rig.start_batch(
        [item(settles, "1.00") for _ in range(5)], SMALL_BATCH_DEFINITION.saga_type
    )

    outcome = await finished(batch)

    assert SMALL_BATCH_DEFINITION.items_per_run == 2
    assert outcome.runs == 3
    assert [i.status for i in outcome.items] == [BatchItemStatus.COMPLETED] * 5
    assert rig.balance("customer") == "95.00 EUR"
    assert await runs_of(rig, batch.saga_id) == [
        WorkflowExecutionStatus.CONTINUED_AS_NEW,
        WorkflowExecutionStatus.CONTINUED_AS_NEW,
        WorkflowExecutionStatus.COMPLETED,
    ]


async def test_an_item_whose_saga_id_is_taken_is_not_paid_twice(rig: Rig) -> None:
    settles = rig.behave(behaviour="settle-callback", callbacks=1)
    key = "pb-taken"
    await rig.client.start(EXTERNAL_PAYOUT, {**item(settles), "idempotency_key": f"{key}-2"})
    await rig.client.start("payout-batch", {"idempotency_key": key, "items": [item(settles)] * 3})

    outcome = await finished(rig.client.saga("payout-batch", key))

    assert [i.status for i in outcome.items] == [
        BatchItemStatus.COMPLETED,
        BatchItemStatus.ABORTED,
        BatchItemStatus.COMPLETED,
    ]
    assert "taken" in outcome.items[1].note
    assert rig.balance("customer") == "70.00 EUR"  # the two items and the payout of its own


async def test_a_cancelled_batch_starts_no_more_items_and_lets_started_ones_end(
    rig: Rig,
) -> None:
    slow = rig.behave(behaviour="settle-callback", callbacks=0, settle_after_seconds=0)
    items = [{**item(slow), "settle_wait_seconds": 120} for _ in range(4)]
    batch = await rig.start_batch(items, concurrency=1)

    async def first_item_running() -> None:
        await rig.env.sleep(1)
        view = await batch.view()
        assert isinstance(view, BatchView)
        assert (view.total, view.running) == (4, [f"payout-{batch.idempotency_key}-1"])

    await assert_eventually(first_item_running)
    await batch.cancel()

    async def closed() -> None:
        await rig.env.sleep(60)
        assert (await batch.workflow.describe()).status is WorkflowExecutionStatus.COMPLETED

    await assert_eventually(closed)  # the started item waits for its settlement first
    outcome = await finished(batch)

    assert outcome.status is SagaStatus.COMPLETED
    assert [i.status for i in outcome.items] == [BatchItemStatus.COMPLETED] + [
        BatchItemStatus.NOT_STARTED
    ] * 3
    assert "cancelled" in outcome.items[1].note
    assert rig.balance("customer") == "90.00 EUR"


async def test_a_batch_with_an_unknown_account_starts_nothing(rig: Rig) -> None:
    items = [item("ben-1"), {**item("ben-2"), "account": "nobody"}]
    with pytest.raises(InvalidRequestError) as caught:
        await rig.client.start("payout-batch", {"idempotency_key": "pb-bad", "items": items})

    assert caught.value.field == "items[2].account"
    with pytest.raises(RPCError, match="not found"):
        await rig.client.saga("payout-batch", "pb-bad").workflow.describe()
    assert rig.balance("customer") == "100.00 EUR"


def test_the_cli_lists_a_batch_by_item() -> None:
    outcome = BatchOutcome(
        saga_id="payout-batch-b",
        saga_type="payout-batch",
        status=SagaStatus.COMPLETED,
        items=[
            BatchItemOutcome(number=1, saga_id="payout-b-1", status=BatchItemStatus.COMPLETED),
            BatchItemOutcome(
                number=2, saga_id="payout-b-2", status=BatchItemStatus.NOT_STARTED, note="late"
            ),
        ],
    )

    shown = outcome_shown(outcome)

    assert shown.lines == [
        "payout-batch-b: COMPLETED",
        "  items: COMPLETED 1, NOT_STARTED 1",
    ]
    assert shown.rows == [
        [1, "payout-b-1", BatchItemStatus.COMPLETED, ""],
        [2, "payout-b-2", BatchItemStatus.NOT_STARTED, "late"],
    ]


async def test_items_not_started_by_the_batch_deadline_are_not_started(rig: Rig) -> None:
    slow = rig.behave(behaviour="settle-callback", callbacks=0, settle_after_seconds=0)
    items = [{**item(slow), "settle_wait_seconds": 120} for _ in range(3)]
    batch = await rig.start_batch(items, concurrency=1, deadline_seconds=60)

    async def closed() -> None:
        await rig.env.sleep(60)
        assert (await batch.workflow.describe()).status is WorkflowExecutionStatus.COMPLETED

    await assert_eventually(closed)  # the first item's settlement wait outlasts the deadline
    outcome = await finished(batch)

    assert [i.status for i in outcome.items] == [BatchItemStatus.COMPLETED] + [
        BatchItemStatus.NOT_STARTED
    ] * 2
    assert "deadline" in outcome.items[2].note
    assert rig.balance("customer") == "90.00 EUR"
