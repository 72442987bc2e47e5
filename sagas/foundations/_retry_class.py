"""The retry classes an error falls in: each is retried by its own part of a step's spec."""

from __future__ import annotations

from enum import StrEnum


class RetryClass(StrEnum):
    """How a fault is retried, from the job-scheduler practice fundsaga grew out of."""

    INSTANT = "instant"  # passes in milliseconds: a timeout, a dropped connection
    TEMPORARY = "temporary"  # passes in seconds: a deadlock, a busy database, an unknown error
    PERMANENT = "permanent"  # a business refusal: never retried
    INFRASTRUCTURE = "infrastructure"  # the database, the audit store, Temporal: it waits
