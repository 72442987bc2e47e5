"""A pivot step on the time-skipping server: backward recovery before it, forward recovery
from it on; cancels and the deadline after it are recorded and compensate nothing."""

from __future__ import annotations

from sagas import (
    FailureReason,
    SagaOutcome,
    SagaStatus,
    parse_money,
)
from sagas.engine import AuditKind
from sagas.ledger import funding_account_id
from sagas.testing import (
    assert_eventually,
    resolve_by_two,
)
from tests.pivot.rig import NOTE, Rig, faults


@faults("test-payout/debit=business")
async def test_a_failure_before_the_pivot_compensates_backwards(rig: Rig) -> None:
    outcome = await (await rig.start()).outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert [c.step_name for c in outcome.compensations] == ["debit"]
    assert outcome.pivot == "send"
    assert not outcome.pivot_passed
    assert rig.balance("acc") == "100.00 EUR"


@faults("test-payout/send=business")
async def test_a_business_error_at_the_pivot_parks_and_a_retry_goes_forward(rig: Rig) -> None:
    saga = await rig.start()
    saga = await rig.parked(saga)
    parked = await saga.view()
    details = await rig.details(saga)

    rig.faults.clear()
    status = await saga.retry(NOTE)
    outcome = await saga.outcome()

    assert parked.failure is not None
    assert (parked.failure.step_name, parked.failure.reason) == ("send", "business_error")
    assert parked.compensation_stack == []
    assert parked.pivot_passed
    key = saga.saga_id.removeprefix("test-payout-")
    assert "**Status:** NEEDS_ATTENTION: an operator is needed" in details
    assert "**Parked on step:** send: " in details
    retry = f"`fundsaga attention retry {key} --type test-payout --note TEXT` runs the step again"
    assert retry in details
    assert [s.forward_only for s in parked.snapshots] == [False, True]
    assert status in (SagaStatus.RUNNING, SagaStatus.COMPLETED)
    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.compensations == []
    assert rig.balance("acc") == "60.00 EUR"
    assert rig.ledger.net_effect(saga.saga_id)[funding_account_id("EUR")] == parse_money(
        "40.00", "EUR"
    )
    assert rig.audit_kinds(saga) == [AuditKind.NEEDS_ATTENTION, AuditKind.OPERATOR_RETRY]


@faults("test-payout/confirm=transient")
async def test_a_step_after_the_pivot_retries_then_parks_and_resolve_ends_it(rig: Rig) -> None:
    saga = await rig.start()
    saga = await rig.parked(saga)
    parked = await saga.view()

    status = await resolve_by_two(saga, NOTE, issued_at=await rig.now())
    outcome = await saga.outcome()

    assert parked.failure is not None
    assert (parked.failure.step_name, parked.failure.reason) == ("confirm", "retries_exhausted")
    assert parked.failure.attempts == 3
    assert status is SagaStatus.RESOLVED
    assert outcome.status is SagaStatus.RESOLVED
    assert outcome.compensations == []
    assert rig.balance("acc") == "60.00 EUR"
    assert rig.audit_kinds(saga) == [
        AuditKind.NEEDS_ATTENTION,
        AuditKind.RESOLUTION_PROPOSED,
        AuditKind.RESOLUTION_APPROVED,
        AuditKind.TERMINAL,
    ]
    proposed = rig.store.records(saga_id=saga.saga_id)[1].payload["proposal"]
    assert isinstance(proposed, dict)
    assert proposed["at"] == {"parking": 1, "parked_on": "confirm", "stack": []}


@faults("test-payout/confirm=transient*2")
async def test_a_cancel_after_the_pivot_is_recorded_and_compensates_nothing(rig: Rig) -> None:
    saga = await rig.start()

    async def past_pivot() -> None:
        assert (await saga.view()).current_step == "confirm"

    await assert_eventually(past_pivot)
    await saga.cancel()
    outcome: SagaOutcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert outcome.compensations == []
    assert [s.reason for s in outcome.ignored_stops] == [FailureReason.CANCELLED]
    assert rig.balance("acc") == "60.00 EUR"


@faults("test-payout/confirm=transient*2")
async def test_the_deadline_after_the_pivot_is_recorded_and_compensates_nothing(
    rig: Rig,
) -> None:
    saga = await rig.start(deadline_seconds=2)

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert [s.reason for s in outcome.ignored_stops] == [FailureReason.DEADLINE]
    assert rig.balance("acc") == "60.00 EUR"
