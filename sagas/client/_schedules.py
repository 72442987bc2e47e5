"""Schedules of sagas, on Temporal Schedules: create, list, view, pause, resume, trigger,
backfill, delete; every operator action an audit record written through the worker."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import JsonValue
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleBackfill,
    ScheduleHandle,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleState,
)
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._operator_actions import OperatorActions
from sagas.client._operator_credentials import OperatorCredential
from sagas.client._schedule_dst import (
    DstCorrection,
    calendar_at,
    dst_corrections,
    matching_times,
)
from sagas.engine import (
    SAGA_STATUS,
    AuditKind,
    SagaMoney,
    SagaRequest,
    ScheduledLaunch,
    check_schedule_id,
    local_nominal_time,
    saga_id,
    scheduled_key,
)
from sagas.foundations import InvalidRequestError, SagaNotFoundError
from sagas.registry import SagaRegistry

LAUNCHER_WORKFLOW = "ScheduledSaga"
COMPANION_SUFFIX = ".dst"
DEFAULT_CATCHUP_WINDOW = timedelta(days=1)
MIN_CATCHUP_WINDOW = timedelta(seconds=10)
_PROBE_TIME = "2000-01-01T00:00"
_JUST_BEFORE = timedelta(milliseconds=1)
"""The server looks for a schedule's times after a range's start: one time T is (T - 1 ms, T]."""


class Overlap(StrEnum):
    """What a fire does while an earlier fire's saga still runs (Temporal's overlap policy)."""

    ALLOW_ALL = "allow-all"  # the default: each local time is a saga of its own
    SKIP = "skip"
    BUFFER_ONE = "buffer-one"
    BUFFER_ALL = "buffer-all"
    CANCEL_OTHER = "cancel-other"
    TERMINATE_OTHER = "terminate-other"

    @property
    def policy(self) -> ScheduleOverlapPolicy:
        return ScheduleOverlapPolicy[self.name]


@dataclass(frozen=True)
class ScheduledRunView:
    scheduled_at: datetime
    local_time: str
    saga_id: str
    status: str
    """The saga's status from its search attribute; empty while Temporal has not indexed it."""


@dataclass(frozen=True)
class ScheduleView:
    schedule_id: str
    saga_type: str
    cron: str
    zone: str
    paused: bool
    note: str
    overlap: str
    catchup_window: timedelta
    next_times: list[datetime]
    recent: list[ScheduledRunView]
    dst_corrections: int


@dataclass(frozen=True)
class ScheduleSummary:
    schedule_id: str
    saga_type: str
    cron: str
    zone: str
    paused: bool
    next_time: datetime | None


SCHEDULE_SAGA_TYPE = "schedule"
"""The `saga_type` of a schedule's audit records: they are about a schedule, not a saga."""


class SagaSchedules:
    """Schedules that start sagas of any registered type on this client's task queue."""

    def __init__(
        self,
        temporal: Client,
        task_queue: str,
        registry: SagaRegistry,
        operator: OperatorCredential | None,
        *,
        audit_completed: bool = False,
        check_request: Callable[[SagaRequest], None] | None = None,
    ) -> None:
        """`check_request` checks a request beyond its model (the client's: its accounts exist
        in the ledger) before anything is created."""
        self.check_request = check_request
        self.temporal = temporal
        self.task_queue = task_queue
        self.registry = registry
        self.actions = OperatorActions(temporal, task_queue, operator)
        self.audit_completed = audit_completed

    async def create(
        self,
        schedule_id: str,
        saga_type: str,
        cron: str,
        tz: str,
        request: Mapping[str, Any],
        *,
        overlap: Overlap = Overlap.ALLOW_ALL,
        catchup_window: timedelta = DEFAULT_CATCHUP_WINDOW,
        note: str = "",
    ) -> ScheduleView:
        """Refuses bad input by field before creating anything: the id, the time zone, the
        request (as the saga type checks it), the cron expression (as the server does)."""
        check_schedule_id(schedule_id)
        zone = _zone(tz)
        if catchup_window < MIN_CATCHUP_WINDOW:
            raise InvalidRequestError("catchup_window", "must be at least 10 s")
        saga = self.registry.get(saga_type)
        probe_key = scheduled_key(schedule_id, _PROBE_TIME)
        parsed = self.registry.parse_request(saga.name, {**request, "idempotency_key": probe_key})
        if self.check_request is not None:
            self.check_request(parsed)
        dumped: dict[str, JsonValue] = parsed.model_dump(mode="json", exclude={"idempotency_key"})
        launch = ScheduledLaunch(
            schedule_id=schedule_id,
            saga_type=saga.name,
            workflow_type=saga.workflow_type(),
            zone=tz,
            request=dumped,
            audit_completed=self.audit_completed,
            money=SagaMoney.of(saga.definition, parsed).memo(),
        )
        corrections = await dst_corrections(self.temporal, cron, zone, datetime.now(UTC))
        memo = {
            "saga_type": saga.name,
            "cron": cron,
            "zone": tz,
            "dst_corrections": len(corrections),
        }
        policy = SchedulePolicy(overlap=overlap.policy, catchup_window=catchup_window)
        repeated = [calendar_at(c.wall) for c in corrections if c.repeated]
        spec = ScheduleSpec(cron_expressions=[cron], skip=repeated, time_zone_name=tz)
        main = self._schedule(launch, spec)
        facts: dict[str, JsonValue] = {
            "saga_type": saga.name,
            "cron": cron,
            "zone": tz,
            "request": dumped,
        }
        async with self._action(AuditKind.SCHEDULE_CREATED, schedule_id, note, facts):
            await self._create(schedule_id, main, launch, policy, note, memo, corrections)
        return await self.view(schedule_id)

    async def _create(
        self,
        schedule_id: str,
        main: Schedule,
        launch: ScheduledLaunch,
        policy: SchedulePolicy,
        note: str,
        memo: dict[str, Any],
        corrections: list[DstCorrection],
    ) -> None:
        try:
            await self.temporal.create_schedule(schedule_id, _with(main, policy, note), memo=memo)
        except ScheduleAlreadyRunningError:
            raise InvalidRequestError("schedule_id", f"{schedule_id!r} already exists") from None
        if corrections:
            spec = ScheduleSpec(
                calendars=[calendar_at(c.instant) for c in corrections], time_zone_name="UTC"
            )
            companion = self._schedule(launch, spec, suffix=COMPANION_SUFFIX)
            try:
                await self.temporal.create_schedule(
                    schedule_id + COMPANION_SUFFIX, _with(companion, policy, note), memo=memo
                )
            except BaseException:  # no schedule without its daylight-saving corrections
                await self.temporal.get_schedule_handle(schedule_id).delete()
                raise

    async def all(self) -> list[ScheduleSummary]:
        found = []
        async for listed in await self.temporal.list_schedules():
            if listed.id.endswith(COMPANION_SUFFIX) or listed.schedule is None:
                continue
            action = listed.schedule.action
            if getattr(action, "workflow", None) != LAUNCHER_WORKFLOW:
                continue
            memo = {key: await listed.memo_value(key, "") for key in ("saga_type", "cron", "zone")}
            upcoming = listed.info.next_action_times if listed.info else []
            found.append(
                ScheduleSummary(
                    listed.id,
                    str(memo["saga_type"]),
                    str(memo["cron"]),
                    str(memo["zone"]),
                    listed.schedule.state.paused,
                    min(upcoming, default=None),
                )
            )
        return sorted(found, key=lambda s: s.schedule_id)

    async def view(self, schedule_id: str, *, count: int = 5) -> ScheduleView:
        main = await self._describe(schedule_id)
        companion = await self._describe_companion(schedule_id)
        launch = await _launch_of(self.temporal, main.schedule)
        described = [main, *([companion] if companion else [])]
        upcoming = sorted(t for d in described for t in d.info.next_action_times)[:count]
        fired = sorted(r.scheduled_at for d in described for r in d.info.recent_actions)
        runs = [await self._run_view(launch, at) for at in _each_saga_once(launch, fired)[-count:]]
        state = main.schedule.state
        policy = main.schedule.policy
        return ScheduleView(
            schedule_id=schedule_id,
            saga_type=launch.saga_type,
            cron=str(await main.memo_value("cron", "")),
            zone=launch.zone,
            paused=state.paused,
            note=state.note or "",
            overlap=Overlap[policy.overlap.name].value,
            catchup_window=policy.catchup_window,
            next_times=upcoming,
            recent=runs,
            dst_corrections=len(companion.schedule.spec.calendars) if companion else 0,
        )

    async def pause(self, schedule_id: str, note: str) -> None:
        await self._describe(schedule_id)
        async with self._action(AuditKind.SCHEDULE_PAUSED, schedule_id, note, {}):
            await self._each(schedule_id, lambda h: h.pause(note=note))

    async def resume(self, schedule_id: str, note: str) -> None:
        await self._describe(schedule_id)
        async with self._action(AuditKind.SCHEDULE_RESUMED, schedule_id, note, {}):
            await self._each(schedule_id, lambda h: h.unpause(note=note))

    async def trigger(self, schedule_id: str, at: datetime | None = None, note: str = "") -> None:
        """Without `at`: an extra run at the current time. With `at`: the run of that time,
        which must be one of the schedule's; a time that ran already moves nothing."""
        await self._describe(schedule_id)
        if at is None:
            async with self._action(AuditKind.SCHEDULE_TRIGGERED, schedule_id, note, {"at": "now"}):
                await self.temporal.get_schedule_handle(schedule_id).trigger(
                    overlap=ScheduleOverlapPolicy.ALLOW_ALL
                )
            return
        at = _utc(at, "at")
        handles = [
            h for h in await self._handles(schedule_id) if await _matches(self.temporal, h.id, at)
        ]
        if not handles:
            raise InvalidRequestError(
                "at", f"{at.isoformat()} is not a time of schedule {schedule_id!r}"
            )
        fill = ScheduleBackfill(
            start_at=at, end_at=at + timedelta(seconds=1), overlap=ScheduleOverlapPolicy.ALLOW_ALL
        )
        facts: dict[str, JsonValue] = {"at": at.isoformat()}
        async with self._action(AuditKind.SCHEDULE_TRIGGERED, schedule_id, note, facts):
            await handles[0].backfill(fill)

    async def backfill(
        self, schedule_id: str, start: datetime, end: datetime, note: str = ""
    ) -> None:
        """Run every time of the schedule in [start, end]; times that ran move nothing."""
        start, end = _utc(start, "from"), _utc(end, "to")
        if end < start:
            raise InvalidRequestError("to", "must not be before --from")
        fill = ScheduleBackfill(start_at=start, end_at=end, overlap=ScheduleOverlapPolicy.ALLOW_ALL)
        await self._describe(schedule_id)
        facts: dict[str, JsonValue] = {"from": start.isoformat(), "to": end.isoformat()}
        async with self._action(AuditKind.SCHEDULE_BACKFILLED, schedule_id, note, facts):
            await self._each(schedule_id, lambda h: h.backfill(fill))

    async def delete(self, schedule_id: str, note: str = "") -> None:
        await self._describe(schedule_id)
        async with self._action(AuditKind.SCHEDULE_DELETED, schedule_id, note, {}):
            await self._each(schedule_id, lambda h: h.delete())

    # ---- helpers
    def _schedule(self, launch: ScheduledLaunch, spec: ScheduleSpec, suffix: str = "") -> Schedule:
        action = ScheduleActionStartWorkflow(
            LAUNCHER_WORKFLOW,
            launch,
            id=f"schedule-{launch.schedule_id}{suffix}",
            task_queue=self.task_queue,
        )
        return Schedule(action=action, spec=spec)

    async def _handles(self, schedule_id: str) -> list[ScheduleHandle]:
        await self._describe(schedule_id)
        handles = [self.temporal.get_schedule_handle(schedule_id)]
        if await self._describe_companion(schedule_id) is not None:
            handles.append(self.temporal.get_schedule_handle(schedule_id + COMPANION_SUFFIX))
        return handles

    async def _each(self, schedule_id: str, act: Any) -> None:
        for handle in await self._handles(schedule_id):
            await act(handle)

    async def _describe(self, schedule_id: str) -> Any:
        check_schedule_id(schedule_id)
        try:
            return await self.temporal.get_schedule_handle(schedule_id).describe()
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no schedule {schedule_id!r}") from None
            raise

    async def _describe_companion(self, schedule_id: str) -> Any:
        try:
            handle = self.temporal.get_schedule_handle(schedule_id + COMPANION_SUFFIX)
            return await handle.describe()
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                return None
            raise

    async def _run_view(self, launch: ScheduledLaunch, scheduled_at: datetime) -> ScheduledRunView:
        local = local_nominal_time(scheduled_at, launch.zone)
        child = _saga_of(launch, scheduled_at)
        try:
            described = await self.temporal.get_workflow_handle(child).describe()
            status = described.typed_search_attributes.get(SAGA_STATUS) or ""
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND:
                raise
            status = "NOT STARTED"
        return ScheduledRunView(scheduled_at, local, child, status)

    @asynccontextmanager
    async def _action(
        self, kind: AuditKind, schedule_id: str, note: str, facts: dict[str, JsonValue]
    ) -> AsyncIterator[None]:
        """The operator is verified before the schedule changes; the record is written after."""
        async with self.actions.taken(kind, SCHEDULE_SAGA_TYPE, schedule_id, note) as details:
            yield
            details.update(facts)


def _saga_of(launch: ScheduledLaunch, scheduled_at: datetime) -> str:
    """The id of the saga a fire for `scheduled_at` starts, or finds already started."""
    local = local_nominal_time(scheduled_at, launch.zone)
    return saga_id(launch.saga_type, scheduled_key(launch.schedule_id, local))


def _each_saga_once(launch: ScheduledLaunch, fired: list[datetime]) -> list[datetime]:
    """The first of the fires (in time order) of each saga: a backfill or `trigger --at` over
    a time that ran, and both occurrences of a repeated time, fire again for the same saga."""
    first: dict[str, datetime] = {}
    for at in fired:
        first.setdefault(_saga_of(launch, at), at)
    return list(first.values())


def _with(schedule: Schedule, policy: SchedulePolicy, note: str) -> Schedule:
    schedule.policy = policy
    schedule.state = ScheduleState(note=note or None)
    return schedule


async def _launch_of(temporal: Client, schedule: Schedule) -> ScheduledLaunch:
    """The launcher's input as the schedule keeps it (a payload, decoded as any other)."""
    action = schedule.action
    assert isinstance(action, ScheduleActionStartWorkflow)
    raw = action.args[0]
    if isinstance(raw, ScheduledLaunch):
        return raw
    (decoded,) = await temporal.data_converter.decode([raw], [ScheduledLaunch])
    assert isinstance(decoded, ScheduledLaunch)
    return decoded


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidRequestError(
            "tz", f"unknown time zone {tz!r} (an IANA name: Europe/Berlin)"
        ) from None


def _utc(moment: datetime, field: str) -> datetime:
    if moment.tzinfo is None:
        raise InvalidRequestError(field, "needs a UTC offset, say 2027-03-01T08:00Z")
    return moment.astimezone(UTC)


async def _matches(temporal: Client, schedule_id: str, at: datetime) -> bool:
    found = await matching_times(temporal, schedule_id, at - _JUST_BEFORE, at + _JUST_BEFORE)
    return at in found
