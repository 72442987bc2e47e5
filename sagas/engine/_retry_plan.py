"""A retry spec laid out before it runs: each retry's wait and the time spent so far, the
practice's presets, and the advice it gives against some specs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from enum import StrEnum

from sagas.engine._duration import format_duration
from sagas.engine._retry import InfrastructureWait, RetrySpec, retry_delay, retry_spec

ADVISED_MULTIPLIER = (Decimal("1.5"), Decimal(4))
ADVISED_MAX_RETRIES = 10
DEFAULT_DEADLINE = timedelta(hours=24)
"""A saga's default deadline (SagaRequest.deadline_seconds)."""


@dataclass(frozen=True)
class PlannedRetry:
    """Retry `retry` (after attempt `retry` failed): its wait, and all waits up to it."""

    retry: int
    delay: timedelta
    cumulative: timedelta


class Preset(StrEnum):
    """The practice's quick table of specs, by how long the task takes."""

    SHORT = "short"  # a task of seconds: done retrying in under a minute
    MEDIUM = "medium"  # a task of minutes: 5-10 minutes of retries
    LONG = "long"  # a task of hours: 1-2 hours of retries


PRESETS: dict[Preset, RetrySpec] = {
    Preset.SHORT: retry_spec(2, 2, 4),
    Preset.MEDIUM: retry_spec(30, 2, 6, max_interval_s=90),
    # The practice's M=1.75 has two decimals; 1.8 is the nearest that a spec allows.
    Preset.LONG: retry_spec(300, "1.8", 10, max_interval_s=600),
}


def retry_plan(spec: RetrySpec, *, key: str = "") -> list[PlannedRetry]:
    """Every retry of `spec`'s own class, its jitter drawn for the effect key `key`."""
    plan: list[PlannedRetry] = []
    total = timedelta(0)
    for retry in range(1, spec.max_retries + 1):
        delay = retry_delay(spec, retry, key=key)
        total += delay
        plan.append(PlannedRetry(retry=retry, delay=delay, cumulative=total))
    return plan


def infrastructure_waits(wait: InfrastructureWait) -> list[timedelta]:
    """The waits between runs up to the first at the cap (all of them, with max_retries)."""
    waits: list[timedelta] = []
    limit = wait.max_retries or 64
    for n in range(1, limit + 1):
        waits.append(wait.delay_before_retry(n))
        if wait.max_retries is None and waits[-1] >= wait.max_interval:
            break
    return waits


def describe_infrastructure_wait(wait: InfrastructureWait) -> str:
    """One line: how a saga waits out a fault of the infrastructure with `wait`."""
    waits = ", ".join(format_duration(w) for w in infrastructure_waits(wait))
    if wait.max_retries is None:
        return (
            f"infrastructure faults (database, audit store, Temporal): the instant class's quick "
            f"retries, then runs again after {waits}, then every "
            f"{format_duration(wait.max_interval)}: an action until the saga's deadline, a "
            f"compensation without limit; never parked"
        )
    return (
        f"infrastructure faults (database, audit store, Temporal): the instant class's quick "
        f"retries, then runs again after {waits} (max_retries {wait.max_retries}), then counts "
        f"as the step's retries exhausted"
    )


def total_backoff(spec: RetrySpec) -> timedelta:
    """The longest time all retries wait (jitter can only shorten it)."""
    return sum((spec.delay_before_retry(n) for n in range(1, spec.max_retries + 1)), timedelta(0))


def spec_advice(
    spec: RetrySpec, *, deadline: timedelta = DEFAULT_DEADLINE, where: str = "spec"
) -> list[str]:
    """What the practice advises against in `spec` (and its instant class), one line each."""
    advice = _class_advice(spec, deadline, where)
    if spec.instant is not None:
        advice += _class_advice(spec.instant, deadline, f"{where}.instant")
    return advice


def _class_advice(spec: RetrySpec, deadline: timedelta, where: str) -> list[str]:
    advice = []
    low, high = ADVISED_MULTIPLIER
    if not low <= spec.multiplier <= high:
        advice.append(f"{where}: multiplier {spec.multiplier} is outside the advised [1.5, 4]")
    if spec.max_retries > ADVISED_MAX_RETRIES:
        advice.append(
            f"{where}: max_retries {spec.max_retries} is above the advised {ADVISED_MAX_RETRIES}"
        )
    total = total_backoff(spec)
    if total > deadline:
        advice.append(
            f"{where}: the retries wait up to {format_duration(total)}, longer than the deadline "
            f"of {format_duration(deadline)}: the deadline, not the retries, ends the step"
        )
    return advice
