from __future__ import annotations

import math
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sagas import InvalidRequestError, RetrySpec, retry_spec
from sagas.engine import MAX_WAIT
from sagas.foundations import BUSINESS_ERRORS, TRANSIENT_ERRORS, BusinessError, TransientError

VALID: dict[str, Any] = {
    "first_interval": timedelta(seconds=10),
    "multiplier": Decimal(2),
    "max_retries": 10,
}


def spec(**overrides: Any) -> RetrySpec:
    return RetrySpec(**{**VALID, **overrides})


def refusal(**overrides: Any) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as caught:
        spec(**overrides)
    return caught.value


@pytest.mark.parametrize(
    "first_interval", [timedelta(0), timedelta(seconds=-1), timedelta(microseconds=-1)]
)
def test_first_interval_must_be_positive(first_interval: timedelta) -> None:
    err = refusal(first_interval=first_interval)

    assert err.field == "first_interval"
    assert "greater than 0" in err.problem


def test_a_first_interval_that_is_not_a_timedelta_is_refused() -> None:
    assert refusal(first_interval=10).field == "first_interval"


def test_the_shortest_positive_first_interval_is_accepted() -> None:
    assert spec(first_interval=timedelta(microseconds=1)).first_interval > timedelta(0)


@pytest.mark.parametrize(
    ("multiplier", "problem"),
    [
        (Decimal("0.9"), "[1.0, 8.0]"),
        (Decimal("8.1"), "[1.0, 8.0]"),
        (0, "[1.0, 8.0]"),
        (9, "[1.0, 8.0]"),
        (Decimal("NaN"), "[1.0, 8.0]"),
        (Decimal("Infinity"), "[1.0, 8.0]"),
        (Decimal("1.25"), "at most one decimal"),
        (Decimal("7.99"), "at most one decimal"),
        (2.0, "must be a Decimal in [1.0, 8.0]"),  # floats are refused, even whole ones
        (True, "must be a Decimal in [1.0, 8.0]"),
        ("2", "must be a Decimal in [1.0, 8.0]"),
    ],
)
def test_multiplier_outside_its_limits_is_refused(multiplier: object, problem: str) -> None:
    err = refusal(multiplier=multiplier)

    assert err.field == "multiplier"
    assert problem in err.problem


@pytest.mark.parametrize(
    ("multiplier", "backoff"),
    [
        (Decimal("1.0"), 1.0),
        (Decimal("1.5"), 1.5),
        (Decimal("8.0"), 8.0),
        (Decimal("8"), 8.0),
        (Decimal("1.50"), 1.5),
        (2, 2.0),
    ],
)
def test_multiplier_within_its_limits_is_accepted(
    multiplier: Decimal | int, backoff: float
) -> None:
    assert spec(multiplier=multiplier).to_retry_policy().backoff_coefficient == backoff


@pytest.mark.parametrize("max_retries", [0, 17, -1, True, False, 2.0, "3"])
def test_max_retries_outside_its_limits_is_refused(max_retries: object) -> None:
    err = refusal(max_retries=max_retries)

    assert err.field == "max_retries"
    assert "[1, 16]" in err.problem


@pytest.mark.parametrize("max_retries", [1, 16])
def test_max_retries_at_its_limits_is_accepted(max_retries: int) -> None:
    assert spec(max_retries=max_retries).maximum_attempts == max_retries + 1


def test_a_max_interval_below_the_first_interval_is_refused() -> None:
    assert refusal(max_interval=timedelta(seconds=9)).field == "max_interval"


def test_retry_spec_builds_from_plain_numbers_and_still_validates() -> None:
    assert retry_spec(10, "2", 10) == spec()
    with pytest.raises(InvalidRequestError) as caught:
        retry_spec(0, "2", 10)
    assert caught.value.field == "first_interval"


def test_the_practice_example_maps_to_a_temporal_retry_policy() -> None:
    policy = retry_spec(10, 2, 10).to_retry_policy()

    assert policy.maximum_attempts == 11
    assert policy.initial_interval == timedelta(seconds=10)
    assert policy.backoff_coefficient == 2.0
    assert policy.maximum_interval == timedelta(seconds=10 * 2**9)
    non_retryable = set(policy.non_retryable_error_types or ())
    business: list[type[Exception]] = [BusinessError, *BUSINESS_ERRORS]
    transient: list[type[Exception]] = [TransientError, *TRANSIENT_ERRORS]
    assert {cls.__name__ for cls in business} <= non_retryable
    assert not {cls.__name__ for cls in transient} & non_retryable


def test_the_max_interval_caps_the_policy() -> None:
    policy = retry_spec(10, 2, 10, max_interval_s=60).to_retry_policy()

    assert policy.maximum_interval == timedelta(seconds=60)


def test_the_practice_example_waits_10_20_40_80_160_seconds() -> None:
    waits = [retry_spec(10, 2, 10).delay_before_retry(n) for n in range(1, 6)]

    assert waits == [timedelta(seconds=s) for s in (10, 20, 40, 80, 160)]


def test_waits_are_capped_at_the_max_interval() -> None:
    waits = [retry_spec(10, 2, 10, max_interval_s=60).delay_before_retry(n) for n in range(1, 6)]

    assert waits == [timedelta(seconds=s) for s in (10, 20, 40, 60, 60)]


@pytest.mark.parametrize("max_interval_s", [None, 3600])
def test_the_steepest_valid_spec_gives_a_usable_policy(max_interval_s: int | None) -> None:
    valid = retry_spec(10, 8, 16, max_interval_s=max_interval_s)

    policy = valid.to_retry_policy()

    assert policy.maximum_attempts == 17
    assert valid.delay_before_retry(16) <= (policy.maximum_interval or timedelta.max)


MULTIPLIERS = st.integers(10, 80).map(lambda tenths: Decimal(tenths) / 10)
_MAX_SECONDS = Decimal(int(MAX_WAIT.total_seconds()))


@settings(database=None)
@given(
    first_s=st.integers(1, 3600),
    multiplier=MULTIPLIERS,
    max_retries=st.integers(1, 16),
    cap_factor=st.none() | st.integers(1, 1000),
)
def test_each_wait_is_f_times_m_to_the_n_minus_1_capped(
    first_s: int, multiplier: Decimal, max_retries: int, cap_factor: int | None
) -> None:
    assume(first_s * multiplier ** (max_retries - 1) < _MAX_SECONDS)
    cap_s = None if cap_factor is None else first_s * cap_factor
    valid = retry_spec(first_s, multiplier, max_retries, max_interval_s=cap_s)

    for n in range(1, max_retries + 1):
        expected = first_s * multiplier ** (n - 1)
        if cap_s is not None:
            expected = min(expected, Decimal(cap_s))
        actual = valid.delay_before_retry(n).total_seconds()
        assert math.isclose(actual, float(expected), rel_tol=1e-9, abs_tol=1e-6)

    policy = valid.to_retry_policy()
    # The default instant class never retries more than the spec's own C.
    assert policy.maximum_attempts == max_retries + 1
    assert policy.initial_interval == timedelta(seconds=first_s)
    assert policy.backoff_coefficient == float(multiplier)
    last_wait = valid.delay_before_retry(max_retries)
    assert policy.maximum_interval == (last_wait if cap_s is None else timedelta(seconds=cap_s))
