"""Retry classes: which class an error falls in, each class's waits and last attempt, jitter and
Retry-After, and how a failure crosses into Temporal."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from sagas import (
    AccountFrozenError,
    ConnectionDroppedError,
    DatabaseBusyError,
    DeadlockError,
    InsufficientFundsError,
    Jitter,
    RetryClass,
    SerializationFailureError,
    StepTimeoutError,
    TransientError,
    retry_spec,
)
from sagas.engine import DEFAULT_INSTANT, RetrySpec, next_retry, retry_delay
from sagas.foundations import BusinessError, EffectCompensatedError, retry_class_of

SPEC = retry_spec(1, 2, 4, 30)


class CounterpartyThrottledError(TransientError):
    """A saga type's own error declares its class."""

    retry_class = RetryClass.INSTANT


@pytest.mark.parametrize(
    ("error", "retry_class"),
    [
        (StepTimeoutError("t"), RetryClass.INSTANT),
        (CounterpartyThrottledError("x"), RetryClass.INSTANT),
        (ConnectionDroppedError("c"), RetryClass.INFRASTRUCTURE),
        (DeadlockError("d"), RetryClass.INFRASTRUCTURE),
        (SerializationFailureError("s"), RetryClass.INFRASTRUCTURE),
        (DatabaseBusyError("b"), RetryClass.INFRASTRUCTURE),
        (TransientError("t"), RetryClass.TEMPORARY),
        (RuntimeError("unknown"), RetryClass.TEMPORARY),
        (InsufficientFundsError("i"), RetryClass.PERMANENT),
        (BusinessError("b"), RetryClass.PERMANENT),
        (EffectCompensatedError("e"), RetryClass.PERMANENT),
    ],
)
def test_errors_map_to_retry_classes_by_class(error: Exception, retry_class: RetryClass) -> None:
    assert retry_class_of(error) is retry_class


def test_instant_faults_default_to_100_200_400_ms() -> None:
    waits = [DEFAULT_INSTANT.delay_before_retry(n) for n in (1, 2, 3)]

    assert waits == [timedelta(milliseconds=ms) for ms in (100, 200, 400)]
    assert DEFAULT_INSTANT.max_retries == 3


def test_each_class_waits_by_its_own_spec_and_stops_at_its_own_c() -> None:
    spec = replace(SPEC, instant=retry_spec("0.05", 3, 2))

    def wait(retry_class: RetryClass, attempt: int) -> timedelta | None:
        return next_retry(spec, retry_class, attempt, key="k").delay

    assert [wait(RetryClass.TEMPORARY, n) for n in (1, 2, 3, 4)] == [
        timedelta(seconds=s) for s in (1, 2, 4, 8)
    ]
    assert next_retry(spec, RetryClass.TEMPORARY, 5, key="k").exhausted
    assert [wait(RetryClass.INSTANT, n) for n in (1, 2)] == [
        timedelta(milliseconds=50),
        timedelta(milliseconds=150),
    ]
    assert next_retry(spec, RetryClass.INSTANT, 3, key="k").exhausted
    assert next_retry(spec, RetryClass.PERMANENT, 1, key="k").exhausted


def test_temporals_policy_allows_the_class_with_the_most_retries() -> None:
    assert SPEC.to_retry_policy().maximum_attempts == 5
    wide = replace(SPEC, instant=retry_spec("0.1", 2, 9))
    assert wide.to_retry_policy().maximum_attempts == 10
    assert wide.to_retry_policy().initial_interval == timedelta(seconds=1)


def test_a_class_spec_has_no_classes_of_its_own() -> None:
    with pytest.raises(ValueError, match=r"instant\.instant"):
        replace(SPEC, instant=replace(DEFAULT_INSTANT, instant=DEFAULT_INSTANT))


def test_full_jitter_is_reproducible_per_key_and_attempt_and_within_the_capped_delay() -> None:
    jittered = replace(SPEC, jitter=Jitter.FULL)
    draws = [retry_delay(jittered, n, key="transfer-1:credit:action") for n in (1, 2, 3, 4)]

    assert draws == [retry_delay(jittered, n, key="transfer-1:credit:action") for n in (1, 2, 3, 4)]
    assert draws != [retry_delay(jittered, n, key="transfer-2:credit:action") for n in (1, 2, 3, 4)]
    assert all(
        timedelta(0) < draw <= SPEC.delay_before_retry(n) for n, draw in enumerate(draws, start=1)
    )


def test_jitter_spreads_the_waits_of_many_keys() -> None:
    jittered = replace(SPEC, jitter=Jitter.FULL)
    draws = {retry_delay(jittered, 1, key=f"k{i}") for i in range(50)}

    assert len(draws) == 50
    assert min(draws) < timedelta(seconds=0.2)
    assert max(draws) > timedelta(seconds=0.8)


@pytest.mark.parametrize("jitter", list(Jitter))
def test_retry_after_makes_the_wait_at_least_that_long(jitter: Jitter) -> None:
    spec = replace(SPEC, jitter=jitter)
    after = timedelta(seconds=20)

    assert retry_delay(spec, 1, key="k", retry_after=after) == after
    assert retry_delay(spec, 4, key="k", retry_after=timedelta(seconds=2)) >= timedelta(seconds=2)
    assert retry_delay(replace(SPEC), 4, retry_after=timedelta(seconds=2)) == timedelta(seconds=8)


def test_a_transient_error_carries_a_retry_after() -> None:
    error = ConnectionDroppedError("429", retry_after=timedelta(seconds=5))

    decided = next_retry(SPEC, retry_class_of(error), 1, key="k", retry_after=error.retry_after)
    assert decided.delay == timedelta(seconds=5)


class Carrier(BaseModel):
    spec: RetrySpec


def test_a_spec_with_classes_and_jitter_survives_json() -> None:
    spec = replace(SPEC, instant=retry_spec("0.2", "1.5", 2), jitter=Jitter.FULL)
    dumped: Any = Carrier(spec=spec).model_dump_json()

    assert Carrier.model_validate_json(dumped).spec == spec


def test_frozen_is_still_permanent() -> None:
    assert retry_class_of(AccountFrozenError("f")) is RetryClass.PERMANENT


def test_the_default_instant_class_never_retries_more_than_the_step_asks() -> None:
    once = retry_spec(5, 2, 1)

    instant = once.for_class(RetryClass.INSTANT)
    assert instant is not None
    assert instant.max_retries == 1
    assert once.to_retry_policy().maximum_attempts == 2
