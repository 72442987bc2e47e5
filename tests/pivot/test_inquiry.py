"""Unknown outcomes on the time-skipping server: a step with an inquiry asks the counterparty
(here the ledger, or a script standing for a rail that cannot tell yet) before it acts again,
and the saga asks before it decides."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import pytest

from sagas import FailureReason, InquiryAnswer, SagaStatus
from sagas.engine import InquiryRecord
from sagas.testing import resolve_by_two
from tests.pivot.activities import RAIL_SCRIPT
from tests.pivot.rig import NOTE, Rig, faults

UNKNOWN, EXECUTED, NOT_EXECUTED = (
    InquiryAnswer.UNKNOWN,
    InquiryAnswer.EXECUTED,
    InquiryAnswer.NOT_EXECUTED,
)


@pytest.fixture(autouse=True)
def rail_script() -> Iterator[dict[str, deque[InquiryAnswer]]]:
    RAIL_SCRIPT.clear()
    yield RAIL_SCRIPT
    RAIL_SCRIPT.clear()


def answers(inquiries: list[InquiryRecord]) -> list[tuple[str, str, int]]:
    return [(i.step_name, i.answer, i.asked) for i in inquiries]


@faults("test-payout/send=timeout")
async def test_a_retry_asks_first_and_takes_the_executed_result(rig: Rig) -> None:
    saga = await rig.start()

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    # The second attempt took the executed result: only the first one ran the step.
    assert [s.attempt for s in rig.ledger.snapshots(saga.saga_id)] == [1, 1, 1]
    assert outcome.inquiries == []  # the action's own inquiry answered; the saga never asked
    assert len(rig.ledger.entries(saga_id=saga.saga_id)) == 2  # debit and send, once each


@faults("test-payout/send=timeout")
async def test_after_the_last_timeout_the_saga_asks_and_goes_on_when_executed(
    rig: Rig, rail_script: dict[str, deque[InquiryAnswer]]
) -> None:
    rail_script["send"] = deque([UNKNOWN, UNKNOWN])  # the action's own two inquiries
    saga = await rig.start()

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert answers(outcome.inquiries) == [("send", EXECUTED, 1)]
    assert outcome.compensations == []
    assert rig.balance("acc") == "60.00 EUR"


@faults("test-payout/debit=transient")
async def test_not_executed_before_the_pivot_compensates(rig: Rig) -> None:
    saga = await rig.start()

    outcome = await saga.outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason is FailureReason.RETRIES_EXHAUSTED
    assert answers(outcome.inquiries) == [("debit", NOT_EXECUTED, 1)]
    assert rig.balance("acc") == "100.00 EUR"


@faults("test-payout/send=transient")
async def test_not_executed_at_the_pivot_parks_and_a_retry_sends(rig: Rig) -> None:
    saga = await rig.start()
    saga = await rig.parked(saga)
    parked = await saga.view()

    rig.faults.clear()
    await saga.retry(NOTE)
    outcome = await saga.outcome()

    assert answers(parked.inquiries) == [("send", NOT_EXECUTED, 1)]
    assert outcome.status is SagaStatus.COMPLETED
    assert rig.balance("acc") == "60.00 EUR"


@faults("test-payout/send=transient")
async def test_an_answer_that_stays_unknown_is_asked_again_then_parks(
    rig: Rig, rail_script: dict[str, deque[InquiryAnswer]]
) -> None:
    rail_script["send"] = deque([UNKNOWN] * 5)  # two from the action, three from the saga
    saga = await rig.start()
    saga = await rig.parked(saga)
    parked = await saga.view()

    status = await resolve_by_two(saga, NOTE, issued_at=await rig.now())
    outcome = await saga.outcome()

    assert answers(parked.inquiries) == [("send", UNKNOWN, 3)]
    assert outcome.status is SagaStatus.RESOLVED
    assert outcome.compensations == []
    assert [s.inquiries for s in parked.snapshots][-1] == []
    assert status is SagaStatus.RESOLVED
    assert rig.audit_kinds(saga)[0] == "needs_attention"


@faults("test-payout/debit=transient")
async def test_an_unknown_outcome_before_the_pivot_parks_instead_of_compensating(
    rig: Rig, rail_script: dict[str, deque[InquiryAnswer]]
) -> None:
    rail_script["debit"] = deque([UNKNOWN] * 5)
    saga = await rig.start()
    saga = await rig.parked(saga)
    parked = await saga.view()

    rig.faults.clear()
    await saga.retry(NOTE)
    outcome = await saga.outcome()

    assert parked.failure is not None
    assert parked.failure.step_name == "debit"
    assert not parked.pivot_passed
    assert answers(parked.inquiries) == [("debit", UNKNOWN, 3)]
    assert outcome.status is SagaStatus.COMPLETED
