"""The external payout against the provider simulator running as its own service, its
callbacks through the webhook receiver (time-skipping server, skipped only where a test says)."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import timedelta

from temporalio.api.enums.v1 import EventType

from sagas import EventWait, FailureReason, SagaStatus
from sagas.client import SagaHandle
from sagas.ledger import funding_account_id
from sagas.payouts import SETTLE_WAIT
from sagas.testing import assert_eventually, resolve_by_two
from tests.payouts.conftest import Rig
from tests.provider.http import call, post_bytes

PAID = "-40.00 EUR"


def _paid_out(rig: Rig) -> None:
    assert rig.balance("customer") == "60.00 EUR"
    assert rig.balance(funding_account_id("EUR")) == "-60.00 EUR"


async def _events(saga: SagaHandle) -> list[tuple[str, EventWait]]:
    return [(e.event, e.result) for e in (await saga.view()).events]


async def test_accept_then_timeout_is_resolved_by_asking(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="accept-then-timeout", delay_seconds=3, callbacks=1)
    saga = await rig.start(beneficiary)

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    # The retry asked first and took the accepted payout: the saga itself never had to ask.
    assert outcome.inquiries == []
    assert await _events(saga) == [("settled", EventWait.RECEIVED)]
    _paid_out(rig)


async def test_a_decline_before_the_pivot_is_compensated(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="decline", reason="beneficiary account closed")
    saga = await rig.start(beneficiary)

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.reason) == (
        "authorize",
        FailureReason.BUSINESS_ERROR,
    )
    assert "beneficiary account closed" in outcome.failure.message
    assert not outcome.pivot_passed
    assert rig.balance("customer") == "100.00 EUR"
    assert rig.ledger.account("customer").held.minor == 0
    key = f"{saga.saga_id}:submit:action"
    assert call(f"{rig.provider}/payouts/{key}").status == 404


async def test_a_rate_limit_is_honoured(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="rate-limit", retry_after=3, limited=1, callbacks=1)
    saga = await rig.start(beneficiary)

    assert (await saga.outcome()).status is SagaStatus.COMPLETED

    scheduled, started = None, None
    async for event in saga.workflow.fetch_history_events():
        attributes = event.activity_task_scheduled_event_attributes
        if event.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if attributes.activity_type.name == "payout.submit":
                scheduled = event
        elif event.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED and scheduled:
            started_of = event.activity_task_started_event_attributes.scheduled_event_id
            started = event if started_of == scheduled.event_id else started
    assert scheduled is not None
    assert started is not None
    assert started.activity_task_started_event_attributes.attempt == 2
    waited = started.event_time.ToDatetime() - scheduled.event_time.ToDatetime()
    assert waited >= timedelta(seconds=3)  # the spec alone would have waited 1 s
    _paid_out(rig)


async def test_a_lost_callback_is_settled_by_asking(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="settle-callback", callbacks=0, settle_after_seconds=0)
    saga = await rig.start(beneficiary)
    await rig.env.sleep(SETTLE_WAIT + timedelta(seconds=1))

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert await _events(saga) == [("settled", EventWait.TIMED_OUT)]
    _paid_out(rig)


async def test_the_request_sets_how_long_the_settlement_callback_is_awaited(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="settle-callback", callbacks=0, settle_after_seconds=0)
    saga = await rig.start(beneficiary, settle_wait_seconds=120)
    await rig.env.sleep(timedelta(seconds=121))

    async def settled_by_asking() -> None:
        await rig.env.sleep(timedelta(seconds=1))
        assert (await saga.view()).status is SagaStatus.COMPLETED

    await assert_eventually(settled_by_asking)
    assert await _events(saga) == [("settled", EventWait.TIMED_OUT)]
    waited = (await saga.view()).events[0].at - (await saga.view()).snapshots[-1].recorded_at
    assert waited < SETTLE_WAIT
    _paid_out(rig)


async def test_a_duplicated_callback_has_one_effect(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="settle-callback", callbacks=2)
    saga = await rig.start(beneficiary)

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert await _events(saga) == [("settled", EventWait.RECEIVED)]
    entries = rig.ledger.entries(saga_id=saga.saga_id)
    assert sorted(e.kind for e in entries) == ["payout", "payout"]  # capture and settle, once
    _paid_out(rig)


async def test_a_flood_of_large_callbacks_leaves_the_payout_completing_normally(
    rig: Rig,
) -> None:
    """35 unsigned bodies of 1.5 MB once pushed a payout past Temporal's history limit, past its
    pivot, into a terminated limbo; now each is refused unread and nothing reaches the saga."""
    beneficiary = rig.behave(behaviour="settle-callback", callbacks=1)
    saga = await rig.start(beneficiary)
    url = f"{os.environ['FUNDSAGA_WEBHOOK_URL']}/events/payout/{saga.idempotency_key}/settled"
    flood = json.dumps({"event_id": "flood", "filler": "x" * 1_500_000}).encode()

    answers = await asyncio.gather(
        *(
            asyncio.to_thread(post_bytes, url, flood, {"Content-Length": str(len(flood))})
            for _ in range(35)
        )
    )
    outcome = await saga.outcome()

    assert set(answers) == {413}
    assert outcome.status is SagaStatus.COMPLETED
    assert await _events(saga) == [("settled", EventWait.RECEIVED)]
    _paid_out(rig)


async def test_a_forged_callback_moves_nothing(rig: Rig) -> None:
    beneficiary = rig.behave(behaviour="accept")
    saga = await rig.start(beneficiary)
    await saga.signal_event("settled", {"status": "settled"})  # the provider never settled

    async def parked_on_settle() -> None:
        await rig.env.sleep(timedelta(minutes=5))  # the settle retries wait on server timers
        assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION

    await assert_eventually(parked_on_settle, timeout=timedelta(seconds=60))
    view = await saga.view()
    now = await rig.env.get_current_time()  # the server skipped ahead: tokens from its clock
    await resolve_by_two(saga, "the provider never settled it: followed up by hand", issued_at=now)
    outcome = await saga.outcome()

    assert view.failure is not None
    assert view.failure.step_name == "settle"
    assert rig.balance(funding_account_id("EUR")) == "-100.00 EUR"  # nothing left through the rail
    assert outcome.status is SagaStatus.RESOLVED
