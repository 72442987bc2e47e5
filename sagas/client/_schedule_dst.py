"""Daylight saving for schedules: the runs Temporal's own spec would skip or run late.

On a spring-forward day a local time inside the gap does not exist, and Temporal skips it; on
a fall-back day a local time occurs twice, and Temporal runs it once, at its second occurrence.
fundsaga wants each such time run once: a time in the gap at the first valid instant after it,
a repeated time at its first occurrence. Both are exact instants, which a companion schedule in
UTC runs; the main schedule skips a repeated time (a skip entry of its spec, in its zone), so
its second occurrence never fires and the first starts the saga whatever fires first, a
backfill over the night included. Both occurrences derive the same key besides.

Which wall-clock times the cron matches on a transition day is the server's own computation
(ListScheduleMatchingTimes), asked of a paused probe schedule with the same cron in UTC.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from google.protobuf.timestamp_pb2 import Timestamp
from temporalio.api.workflowservice.v1 import ListScheduleMatchingTimesRequest
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleCalendarSpec,
    ScheduleRange,
    ScheduleSpec,
    ScheduleState,
)
from temporalio.service import RPCError

from sagas.foundations import InvalidRequestError

DST_HORIZON_YEARS = 10
"""How far ahead a schedule's daylight-saving corrections are computed when it is created."""


@dataclass(frozen=True)
class DstCorrection:
    """One wall-clock time of a transition day that Temporal's own spec would run late or not
    at all, and the instant fundsaga runs it at instead."""

    wall: datetime
    """The local time the cron names, naive."""
    instant: datetime
    """When the companion schedule runs it, UTC."""
    repeated: bool
    """A fall-back time: the main schedule skips it (its second occurrence)."""


def transition_days(zone: ZoneInfo, start: date, years: int = DST_HORIZON_YEARS) -> list[date]:
    """Days, from `start` on, whose UTC offset in `zone` changes during the day."""
    days = []
    day = start
    end = start.replace(year=start.year + years)
    while day < end:
        morning = datetime.combine(day, time(), zone).utcoffset()
        evening = datetime.combine(day, time(23, 59), zone).utcoffset()
        if morning != evening:
            days.append(day)
        day += timedelta(days=1)
    return days


def correction(wall: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC instant the companion schedule runs for wall-clock time `wall` (naive) in
    `zone`: the first instant after the gap for a time that does not exist, the first
    occurrence for a time that occurs twice; None for an ordinary time."""
    first = wall.replace(tzinfo=zone, fold=0)
    second = wall.replace(tzinfo=zone, fold=1)
    if first.utcoffset() == second.utcoffset():
        return None
    exists = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall
    if exists:  # it occurs twice: run the first
        return first.astimezone(UTC)
    return _first_instant_after_gap(wall, zone)


def _first_instant_after_gap(wall: datetime, zone: ZoneInfo) -> datetime:
    """The transition instant: the first UTC minute whose local time is past `wall`."""
    instant = wall.replace(tzinfo=zone, fold=0).astimezone(UTC) - timedelta(hours=3)
    while instant.astimezone(zone).replace(tzinfo=None) < wall:
        instant += timedelta(minutes=1)
    return instant


def calendar_at(instant: datetime) -> ScheduleCalendarSpec:
    """A calendar entry matching `instant` only: UTC for an aware one, the schedule's own zone
    for a naive one."""
    return ScheduleCalendarSpec(
        second=[ScheduleRange(instant.second)],
        minute=[ScheduleRange(instant.minute)],
        hour=[ScheduleRange(instant.hour)],
        day_of_month=[ScheduleRange(instant.day)],
        month=[ScheduleRange(instant.month)],
        year=[ScheduleRange(instant.year)],
    )


async def dst_corrections(
    temporal: Client, cron: str, zone: ZoneInfo, now: datetime
) -> list[DstCorrection]:
    """The times a companion schedule must run for `cron` in `zone` over the horizon.

    An `@every` interval counts time, not the wall clock: it needs none. Raises
    InvalidRequestError naming `cron` when the server refuses the expression; the probe
    schedule is deleted whatever happens."""
    probe_id = f"fundsaga-probe-{uuid.uuid4().hex[:12]}"
    try:
        handle = await temporal.create_schedule(
            probe_id,
            Schedule(
                action=ScheduleActionStartWorkflow("Probe", id=probe_id, task_queue=probe_id),
                spec=ScheduleSpec(cron_expressions=[cron], time_zone_name="UTC"),
                state=ScheduleState(paused=True, note="fundsaga: daylight-saving probe"),
            ),
        )
    except RPCError as err:
        raise InvalidRequestError(
            "cron", f"{cron!r} is not a cron expression: {err.message}"
        ) from None
    try:
        if cron.strip().startswith("@every"):
            return []
        found: dict[datetime, DstCorrection] = {}
        for day in transition_days(zone, now.astimezone(zone).date()):
            midnight = datetime.combine(day, time(), UTC)
            matched = await matching_times(
                temporal, probe_id, midnight, midnight + timedelta(days=1)
            )
            for named in matched:  # in UTC, so the wall-clock times the cron names
                wall = named.replace(tzinfo=None)
                fixed = correction(wall, zone)
                if fixed is not None and fixed > now:
                    repeated = fixed == wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
                    found.setdefault(fixed, DstCorrection(wall, fixed, repeated))
        return sorted(found.values(), key=lambda c: c.instant)
    finally:
        await handle.delete()


async def matching_times(
    temporal: Client, schedule_id: str, start: datetime, end: datetime
) -> list[datetime]:
    """The server's own computation of the times the schedule matches in [start, end), UTC."""
    since, until = Timestamp(), Timestamp()
    since.FromDatetime(start)
    until.FromDatetime(end)
    found = await temporal.workflow_service.list_schedule_matching_times(
        ListScheduleMatchingTimesRequest(
            namespace=temporal.namespace, schedule_id=schedule_id, start_time=since, end_time=until
        )
    )
    return [stamp.ToDatetime(UTC) for stamp in found.start_time]
