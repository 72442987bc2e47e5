"""Retry specs: first interval F, multiplier M, maximum retries C and a maximum interval, per
retry class (instant, temporary; permanent faults are never retried), with optional jitter; the
wait before a step's next attempt: its class's delay, jitter, a Retry-After; and how a saga
waits out a fault of the infrastructure once its activity's quick retries are spent."""

from __future__ import annotations

import functools
import hashlib
import random
from dataclasses import dataclass, replace
from datetime import timedelta
from decimal import Decimal
from enum import StrEnum

from temporalio.common import RetryPolicy

from sagas.foundations import InvalidRequestError, RetryClass, non_retryable_error_types

MIN_MULTIPLIER = Decimal("1.0")
MAX_MULTIPLIER = Decimal("8.0")
MIN_RETRIES = 1
MAX_RETRIES = 16
MAX_WAIT = timedelta(seconds=315_576_000_000)
"""The longest wait Temporal can carry (a protobuf Duration); longer waits are clamped to it."""
_MAX_WAIT_S = Decimal(int(MAX_WAIT.total_seconds()))


class Jitter(StrEnum):
    """How a retry's wait is drawn from its capped delay."""

    NONE = "none"  # the capped delay itself
    FULL = "full"  # uniform in [0, capped delay], seeded by (effect key, attempt): reproducible


def _check_multiplier(multiplier: object) -> None:
    if isinstance(multiplier, bool) or not isinstance(multiplier, Decimal | int):
        raise InvalidRequestError(
            "multiplier", "must be a Decimal in [1.0, 8.0] with at most one decimal"
        )
    value = Decimal(multiplier)
    if not value.is_finite() or not MIN_MULTIPLIER <= value <= MAX_MULTIPLIER:
        raise InvalidRequestError("multiplier", f"must be in [1.0, 8.0], got {value}")
    if value != value.quantize(Decimal("0.1")):
        raise InvalidRequestError("multiplier", f"must have at most one decimal, got {value}")


@dataclass(frozen=True, kw_only=True)
class InfrastructureWait:
    """How a saga waits out a fault of the infrastructure (the database down or restarting, a
    dropped connection, a storm of serialization failures) once its activity's quick retries,
    those of the instant class, are spent: the saga runs the activity again after the n-th wait,
    ``first_interval * multiplier ** (n - 1)`` capped at ``max_interval``.

    A step before its pivot waits until the saga's deadline, then compensates; a compensation,
    and a step past the pivot, wait without limit. `max_retries` can tighten that: after so many
    waits the fault counts as the step's retries exhausted."""

    first_interval: timedelta = timedelta(seconds=1)
    multiplier: Decimal = Decimal(2)
    max_interval: timedelta = timedelta(minutes=1)
    max_retries: int | None = None
    """None: without limit (a step's deadline still ends it)."""

    def __post_init__(self) -> None:
        if not isinstance(self.first_interval, timedelta) or self.first_interval <= timedelta(0):
            raise InvalidRequestError("first_interval", "must be greater than 0 seconds")
        if not isinstance(self.max_interval, timedelta) or self.max_interval < self.first_interval:
            raise InvalidRequestError("max_interval", "must be at least first_interval")
        _check_multiplier(self.multiplier)
        retries = self.max_retries
        if retries is not None and (
            isinstance(retries, bool) or not isinstance(retries, int) or retries < MIN_RETRIES
        ):
            raise InvalidRequestError("max_retries", "must be a positive integer, or none")

    def delay_before_retry(self, n: int) -> timedelta:
        """The wait before the n-th run again (n starts at 1), capped at max_interval."""
        cap = Decimal(str(self.max_interval.total_seconds()))
        first = Decimal(str(self.first_interval.total_seconds()))
        # Past the cap the power only grows: stop computing it (n is unbounded).
        seconds = first * Decimal(self.multiplier) ** min(n - 1, 64)
        return self.max_interval if seconds >= cap else timedelta(seconds=float(seconds))

    def exhausted_after(self, waits: int) -> bool:
        return self.max_retries is not None and waits >= self.max_retries


DEFAULT_INFRASTRUCTURE_WAIT = InfrastructureWait()
"""1 s, 2 s, 4 s ... then every minute: until the deadline for a step, forever for a
compensation."""


@dataclass(frozen=True, kw_only=True)
class RetrySpec:
    """How a step's action or compensation is retried.

    The n-th retry waits ``first_interval * multiplier ** (n - 1)``, capped at ``max_interval``.
    F, M, C and the cap are those of the temporary class (and of unknown errors); `instant`
    overrides them for instant faults, and gives faults of the infrastructure their quick
    retries before the saga waits them out as `infrastructure` says. Permanent faults are never
    retried.
    """

    first_interval: timedelta
    """F: the wait before the first retry; must be positive."""
    multiplier: Decimal
    """M: growth of the wait per retry, in [1.0, 8.0] with at most one decimal."""
    max_retries: int
    """C: retries after the first attempt, in [1, 16]; Temporal's maximum_attempts is C + 1."""
    max_interval: timedelta | None = None
    """Cap on any single wait; defaults to the wait of the last retry (no cap)."""
    instant: RetrySpec | None = None
    """The spec of instant faults (timeouts, dropped connections); None: `DEFAULT_INSTANT`, with
    at most this spec's own C."""
    jitter: Jitter = Jitter.NONE
    """Full jitter draws each wait uniformly between 0 and the capped delay."""
    infrastructure: InfrastructureWait | None = None
    """How the saga waits out infrastructure faults; None: `DEFAULT_INFRASTRUCTURE_WAIT`."""

    def __post_init__(self) -> None:
        self._validate()
        if self.instant is not None and self.instant.instant is not None:
            raise InvalidRequestError("instant.instant", "a class's spec has no classes of its own")
        if not isinstance(self.jitter, Jitter):
            raise InvalidRequestError("jitter", "must be none or full")

    def _validate(self) -> None:
        if not isinstance(self.first_interval, timedelta) or self.first_interval <= timedelta(0):
            raise InvalidRequestError("first_interval", "must be greater than 0 seconds")
        _check_multiplier(self.multiplier)
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise InvalidRequestError("max_retries", "must be an integer in [1, 16]")
        if not MIN_RETRIES <= self.max_retries <= MAX_RETRIES:
            raise InvalidRequestError(
                "max_retries", f"must be an integer in [1, 16], got {self.max_retries}"
            )
        if self.max_interval is not None and self.max_interval < self.first_interval:
            raise InvalidRequestError("max_interval", "must be at least first_interval")

    @property
    def maximum_attempts(self) -> int:
        return self.max_retries + 1

    def for_class(self, retry_class: RetryClass) -> RetrySpec | None:
        """The spec that retries faults of `retry_class` within one run of the activity; None
        for permanent ones. Infrastructure faults take the instant class's quick retries."""
        if retry_class is RetryClass.PERMANENT:
            return None
        if retry_class in (RetryClass.INSTANT, RetryClass.INFRASTRUCTURE):
            return self.instant or self._default_instant()
        return self

    @property
    def infrastructure_wait(self) -> InfrastructureWait:
        return self.infrastructure or DEFAULT_INFRASTRUCTURE_WAIT

    def _default_instant(self) -> RetrySpec:
        """100, 200, 400 ms; never more retries than the step asks for its temporary faults."""
        retries = min(DEFAULT_INSTANT.max_retries, self.max_retries)
        return RetrySpec(
            first_interval=DEFAULT_INSTANT.first_interval,
            multiplier=DEFAULT_INSTANT.multiplier,
            max_retries=retries,
        )

    @property
    def policy_attempts(self) -> int:
        """Temporal's maximum_attempts: enough for the class with the most retries; the step's
        activity ends each class at its own C."""
        return max(
            self.maximum_attempts, (self.instant or self._default_instant()).maximum_attempts
        )

    def delay_before_retry(self, n: int) -> timedelta:
        """The wait before the n-th retry (n starts at 1)."""
        seconds = Decimal(str(self.first_interval.total_seconds())) * Decimal(self.multiplier) ** (
            n - 1
        )
        cap = self.max_interval
        if cap is not None and seconds >= Decimal(str(cap.total_seconds())):
            return cap
        return min(timedelta(seconds=float(min(seconds, _MAX_WAIT_S))), MAX_WAIT)

    def to_retry_policy(self) -> RetryPolicy:
        """Temporal's policy for this spec; it refuses to retry every non-retryable error class
        defined by the time it is built, a saga type's own BusinessError subclasses included."""
        cap, attempts = _policy_bounds(self)
        return RetryPolicy(
            initial_interval=self.first_interval,
            backoff_coefficient=float(self.multiplier),
            maximum_interval=cap,
            maximum_attempts=attempts,
            non_retryable_error_types=list(non_retryable_error_types()),
        )


@functools.lru_cache(maxsize=1024)
def _policy_bounds(spec: RetrySpec) -> tuple[timedelta, int]:
    """The maximum interval and attempts of a spec's policy: Decimal arithmetic that every step
    of every saga would otherwise repeat inside its workflow task."""
    return spec.max_interval or spec.delay_before_retry(spec.max_retries), spec.policy_attempts


def retry_spec(
    first_interval_s: float | int | Decimal | str,
    multiplier: Decimal | int | str,
    max_retries: int,
    max_interval_s: float | int | Decimal | str | None = None,
) -> RetrySpec:
    """Build a RetrySpec from plain numbers, e.g. ``retry_spec(10, "2", 10)``."""
    return RetrySpec(
        first_interval=timedelta(seconds=float(Decimal(str(first_interval_s)))),
        multiplier=Decimal(str(multiplier)),
        max_retries=max_retries,
        max_interval=None
        if max_interval_s is None
        else timedelta(seconds=float(Decimal(str(max_interval_s)))),
    )


DEFAULT_INSTANT = retry_spec("0.1", 2, 3)
"""Instant faults: retries after 100, 200 and 400 ms."""


RETRIES_EXHAUSTED = "retries_exhausted"
"""Detail of a failure raised non-retryable because its class ran out of retries, not because
it is a business error."""
SHORTEST_WAIT = timedelta(milliseconds=1)
"""A drawn wait of zero would make Temporal fall back to the policy's own interval."""


@dataclass(frozen=True, kw_only=True)
class NextRetry:
    """What follows a failed attempt: another one after `delay`, or none (`exhausted`)."""

    retry_class: RetryClass
    exhausted: bool
    delay: timedelta | None = None


def jitter_seed(key: str, attempt: int) -> int:
    """The seed of a jittered wait: the same effect key and attempt always draw the same wait."""
    digest = hashlib.sha256(f"{key}#{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def retry_delay(
    spec: RetrySpec, retry: int, *, key: str = "", retry_after: timedelta | None = None
) -> timedelta:
    """The wait before retry `retry` (it follows attempt `retry`) of one class's spec."""
    delay = spec.delay_before_retry(retry)
    if spec.jitter is Jitter.FULL:
        fraction = random.Random(jitter_seed(key, retry)).random()
        delay = max(timedelta(seconds=delay.total_seconds() * fraction), SHORTEST_WAIT)
    if retry_after is not None and retry_after > delay:
        return retry_after
    return delay


def class_spec(spec: RetrySpec, retry_class: RetryClass) -> RetrySpec | None:
    """The spec whose delays faults of `retry_class` wait, with the step's jitter; None for
    permanent faults."""
    found = spec.for_class(retry_class)
    # Jitter is the step's choice, whichever class's delays it draws from.
    return None if found is None else replace(found, jitter=spec.jitter, instant=None)


def next_retry(
    spec: RetrySpec,
    retry_class: RetryClass,
    attempt: int,
    *,
    key: str,
    retry_after: timedelta | None = None,
) -> NextRetry:
    """After attempt `attempt` failed with a fault of `retry_class`: retry when, or not at all."""
    drawn = class_spec(spec, retry_class)
    if drawn is None or attempt > drawn.max_retries:
        return NextRetry(retry_class=retry_class, exhausted=True)
    delay = retry_delay(drawn, attempt, key=key, retry_after=retry_after)
    return NextRetry(retry_class=retry_class, exhausted=False, delay=delay)
