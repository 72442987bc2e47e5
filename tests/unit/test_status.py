from __future__ import annotations

import pytest

from sagas import (
    SagaCompensatedError,
    SagaNotCompletedError,
    SagaOutcome,
    SagaRejectedError,
    SagaResolvedError,
    SagaStatus,
)
from sagas.engine import completed_or_raise


def test_the_statuses_are_exactly_those_of_the_design() -> None:
    assert [status.name for status in SagaStatus] == [
        "RUNNING",
        "COMPLETED",
        "COMPENSATING",
        "COMPENSATED",
        "NEEDS_ATTENTION",
        "RESOLVED",
        "REJECTED",
        "KILLED",
    ]


@pytest.mark.parametrize("status", list(SagaStatus), ids=str)
def test_a_status_value_is_its_name(status: SagaStatus) -> None:
    assert status.value == status.name
    assert str(status) == status.name
    assert SagaStatus(status.name) is status


@pytest.mark.parametrize(
    ("status", "terminal"),
    [
        (SagaStatus.RUNNING, False),
        (SagaStatus.COMPLETED, True),
        (SagaStatus.COMPENSATING, False),
        (SagaStatus.COMPENSATED, True),
        (SagaStatus.NEEDS_ATTENTION, False),  # waits for an operator, never closes on its own
        (SagaStatus.RESOLVED, True),
        (SagaStatus.REJECTED, True),
        (SagaStatus.KILLED, False),  # its recovery closes it, once two operators agreed
    ],
)
def test_only_completed_compensated_resolved_and_rejected_are_terminal(
    status: SagaStatus, terminal: bool
) -> None:
    assert status.is_terminal is terminal


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (SagaStatus.COMPENSATED, SagaCompensatedError),
        (SagaStatus.RESOLVED, SagaResolvedError),
        (SagaStatus.REJECTED, SagaRejectedError),
    ],
)
def test_only_a_completed_outcome_is_returned_every_other_end_raises_with_it(
    status: SagaStatus, error: type[SagaNotCompletedError]
) -> None:
    completed = SagaOutcome(saga_id="transfer-k", saga_type="transfer", status=SagaStatus.COMPLETED)
    ended = completed.model_copy(update={"status": status})

    assert completed_or_raise(completed) is completed
    with pytest.raises(error) as raised:
        completed_or_raise(ended)
    assert raised.value.outcome is ended
    assert isinstance(raised.value, SagaNotCompletedError)
