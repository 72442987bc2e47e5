"""The wait before a step's next attempt: its class's delay, jitter, a Retry-After."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, replace
from datetime import timedelta

from sagas.engine._retry import Jitter, RetrySpec
from sagas.foundations import RetryClass

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


def next_retry(
    spec: RetrySpec,
    retry_class: RetryClass,
    attempt: int,
    *,
    key: str,
    retry_after: timedelta | None = None,
) -> NextRetry:
    """After attempt `attempt` failed with a fault of `retry_class`: retry when, or not at all."""
    class_spec = spec.for_class(retry_class)
    if class_spec is None or attempt > class_spec.max_retries:
        return NextRetry(retry_class=retry_class, exhausted=True)
    # Jitter is the step's choice, whichever class's delays it draws from.
    drawn = replace(class_spec, jitter=spec.jitter)
    delay = retry_delay(drawn, attempt, key=key, retry_after=retry_after)
    return NextRetry(retry_class=retry_class, exhausted=False, delay=delay)
