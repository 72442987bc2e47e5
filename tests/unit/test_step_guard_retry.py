"""step_guard with the step's retry spec on its call: each failure's wait, or its last attempt."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from sagas import (
    ConnectionDroppedError,
    DeadlockError,
    FaultPlan,
    InsufficientFundsError,
    Jitter,
    StepTimeoutError,
    TransientError,
    retry_spec,
)
from sagas.engine import retry_delay
from tests.unit._guard import RecordingSnapshotStore, at_attempt, run_guarded, transfer_call

SPEC = retry_spec(1, 2, 4)


def failure(
    attempt: int, raised: Callable[[], None], spec: object = SPEC, earlier: int = 0
) -> ApplicationError:
    call = transfer_call().model_copy(update={"retry": spec, "earlier_attempts": earlier})
    env = at_attempt(ActivityEnvironment(), attempt)
    with pytest.raises(ApplicationError) as caught:
        run_guarded(env, call, RecordingSnapshotStore(), FaultPlan(), raised)
    return caught.value


def raising(error: Exception) -> Callable[[], None]:
    def body() -> None:
        raise error

    return body


def test_a_temporary_fault_sets_its_class_wait_for_this_attempt() -> None:
    err = failure(3, raising(TransientError("victim")))

    assert err.next_retry_delay == timedelta(seconds=4)
    assert not err.non_retryable
    assert err.details[0] == {"attempt": 3, "retry_class": "temporary"}


def test_an_instant_fault_beyond_its_c_is_non_retryable_and_marked_exhausted() -> None:
    err = failure(4, raising(StepTimeoutError("no answer")))

    assert err.non_retryable
    assert err.type == "StepTimeoutError"
    assert err.details[0] == {"attempt": 4, "retry_class": "instant", "retries_exhausted": True}


def test_an_infrastructure_fault_takes_the_instant_waits_then_hands_over_to_the_saga() -> None:
    """Its quick retries spent, the run ends marked `infrastructure`: the saga waits it out."""
    assert failure(2, raising(ConnectionDroppedError("reset"))).next_retry_delay == timedelta(
        milliseconds=200
    )
    err = failure(4, raising(DeadlockError("victim")))

    assert err.non_retryable
    assert err.details[0] == {
        "attempt": 4,
        "retry_class": "infrastructure",
        "retries_exhausted": True,
    }


def test_an_unknown_error_is_temporary() -> None:
    assert failure(2, raising(KeyError("x"))).next_retry_delay == timedelta(seconds=2)
    last = failure(5, raising(KeyError("x")))
    assert last.non_retryable
    assert last.type == "KeyError"


def test_a_business_error_is_non_retryable_without_a_wait() -> None:
    err = failure(1, raising(InsufficientFundsError("short")))

    assert err.non_retryable
    assert err.next_retry_delay is None
    assert "retries_exhausted" not in err.details[0]


def test_a_jittered_wait_is_drawn_from_the_effect_key() -> None:
    jittered = retry_spec(1, 2, 4).__class__(**{**SPEC.__dict__, "jitter": Jitter.FULL})
    err = failure(2, raising(TransientError("victim")), jittered)

    key = transfer_call().effect_key()
    assert err.next_retry_delay == retry_delay(jittered, 2, key=key)
    assert err.next_retry_delay != timedelta(seconds=2)


def test_without_a_spec_on_the_call_an_unknown_error_passes_untouched() -> None:
    env = ActivityEnvironment()
    with pytest.raises(KeyError):
        run_guarded(
            env, transfer_call(), RecordingSnapshotStore(), FaultPlan(), raising(KeyError())
        )


def test_attempts_count_on_across_runs_while_each_run_draws_its_own_waits() -> None:
    """After a wait on the infrastructure the saga runs the activity again: its first attempt
    is the ninth of the step, and waits as a first attempt does."""
    err = failure(1, raising(TransientError("victim")), earlier=8)

    assert err.details[0]["attempt"] == 9
    assert err.next_retry_delay == timedelta(seconds=1)
