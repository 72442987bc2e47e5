from __future__ import annotations

import pytest

from sagas import SagaStatus


def test_the_statuses_are_exactly_those_of_the_design() -> None:
    assert [status.name for status in SagaStatus] == [
        "RUNNING",
        "COMPLETED",
        "COMPENSATING",
        "COMPENSATED",
        "NEEDS_ATTENTION",
        "RESOLVED",
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
    ],
)
def test_only_completed_compensated_and_resolved_are_terminal(
    status: SagaStatus, terminal: bool
) -> None:
    assert status.is_terminal is terminal
