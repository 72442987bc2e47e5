"""What a schedule launches, and the one key each local nominal time gets.

A schedule's action is the engine's launcher workflow with a `ScheduledLaunch`. Temporal tells
the launcher the time it was scheduled for; the launcher converts it into the schedule's zone
and derives the saga's key from that local nominal time, never from a wall clock. Two fires for
the same local time (a duplicate, an overlap, a backfill or trigger over a time that ran, the
fall-back hour) derive the same key, so the same saga id, which Temporal starts at most once.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel, JsonValue

from sagas.engine._status import SagaStatus
from sagas.foundations import InvalidRequestError

SCHEDULE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SCHEDULED_START_TIME = "TemporalScheduledStartTime"
"""The search attribute Temporal sets on a workflow a schedule starts: its scheduled time."""
FINGERPRINT_MEMO = "request_fingerprint"


def check_schedule_id(schedule_id: str) -> str:
    if not SCHEDULE_ID.fullmatch(schedule_id):
        raise InvalidRequestError(
            "schedule_id", "must be 1-64 characters of letters, digits and . _ -"
        )
    return schedule_id


def local_nominal_time(scheduled: datetime, zone: str) -> str:
    """`scheduled` as the wall-clock time in `zone`, without offset: the same text for both
    occurrences of a time the fall-back hour repeats. Seconds only when not zero."""
    local = scheduled.astimezone(ZoneInfo(zone)).replace(tzinfo=None, microsecond=0)
    return local.isoformat(timespec="minutes" if local.second == 0 else "seconds")


def scheduled_key(schedule_id: str, local_time: str) -> str:
    """The saga's idempotency key for one local nominal time of a schedule."""
    return f"{schedule_id}@{local_time}"


class ScheduledLaunch(BaseModel):
    """The launcher's input: which saga, with which request, for which schedule and zone."""

    schedule_id: str
    saga_type: str
    workflow_type: str
    zone: str
    request: dict[str, JsonValue]
    """The saga's request without its key, as the saga type's model dumps it."""
    audit_completed: bool = False
    money: dict[str, JsonValue] | None = None
    """The request's `SagaMoney` for the memo of each saga the schedule starts (None in
    schedules created before it)."""


class ScheduledRun(BaseModel):
    """What one fire of a schedule did: its saga and how the saga ended."""

    saga_id: str
    local_time: str
    status: SagaStatus | None
    """None when the saga id was already taken: that nominal time ran before; nothing moved."""
    note: str = ""
