"""The chaos run's checks of issue 31's faults, against made-up ends, without running anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sagas.engine import (
    CompensationOutcome,
    CompensationResult,
    FailureReason,
    SagaStatus,
    SagaView,
    StepFailure,
)
from tooling.chaos._outage_checks import terminated_recovered, times_backwards
from tooling.chaos._parking import infrastructure_fault

AT = datetime(2026, 11, 26, tzinfo=UTC)


def parked(*, on_step: str = "", on_compensation: str = "") -> SagaView:
    failure = StepFailure(
        step_name="credit",
        reason=FailureReason.BUSINESS_ERROR,
        error_type=on_step.split(":")[0] or "AccountFrozenError",
        message=on_step or "account 'x' is frozen",
    )
    compensations = [
        CompensationOutcome(
            step_name="capture",
            compensation="transfer.capture.undo",
            result=CompensationResult.FAILED,
            message=on_compensation,
            at=AT,
        )
    ]
    return SagaView(
        saga_id="transfer-k",
        saga_type="transfer",
        status=SagaStatus.NEEDS_ATTENTION,
        current_step="capture",
        snapshots=[],
        compensation_stack=[],
        failure=failure,
        compensations=compensations if on_compensation else [],
        parked_on_step=bool(on_step),
    )


@pytest.mark.parametrize(
    "view",
    [
        parked(on_compensation="ConnectionDroppedError: connection refused"),
        parked(on_compensation="DatabaseBusyError: database is locked"),
        parked(on_compensation="activity StartToClose timeout"),
        parked(on_step="SerializationFailureError: could not serialize access"),
    ],
)
def test_a_parking_on_an_infrastructure_fault_is_named(view: SagaView) -> None:
    assert infrastructure_fault(view) is not None


@pytest.mark.parametrize(
    "view",
    [
        parked(on_compensation="InsufficientFundsError: 'payee' holds EUR 0.00, needs EUR 5.00"),
        parked(on_step="AccountFrozenError: account 'x' is frozen"),
    ],
)
def test_a_parking_on_a_business_failure_is_not(view: SagaView) -> None:
    assert infrastructure_fault(view) is None


def test_a_run_that_never_got_to_recover_fails_the_check() -> None:
    assert not terminated_recovered(["transfer-a"], None).ok


def test_every_terminated_saga_must_be_recovered() -> None:
    assert terminated_recovered(["transfer-a"], {"transfer-a": "COMPENSATED"}).ok
    assert not terminated_recovered(["transfer-a", "transfer-b"], {"transfer-a": "COMPLETED"}).ok
    assert not terminated_recovered(["transfer-a"], {"transfer-a": "RUNNING"}).ok


def test_a_time_earlier_than_any_before_it_counts_as_backwards() -> None:
    second = timedelta(seconds=1)
    assert times_backwards([AT, AT, AT + second]) == 0
    assert times_backwards([AT, AT + 2 * second, AT + second, AT + 3 * second]) == 1
    assert times_backwards([AT + 2 * second, AT, AT + second]) == 2
