"""The deployment's one timed anchor: a Temporal schedule, so it comes from one place only."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleHandle,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
)

from workflows import AuditAnchorWorkflow


def anchor_schedule_id(task_queue: str) -> str:
    return f"fundsaga-audit-anchor-{task_queue}"


async def ensure_anchor_schedule(
    temporal: Client, task_queue: str, every: timedelta
) -> ScheduleHandle:
    """Create the schedule that anchors the audit chain every `every`, unless it exists.

    Every worker may call this; Temporal keeps one schedule per id, and skips a run while the
    previous one is still going, so anchors never race each other.
    """
    schedule_id = anchor_schedule_id(task_queue)
    schedule = Schedule(
        action=ScheduleActionStartWorkflow(
            AuditAnchorWorkflow.run, id=f"audit-anchor-{task_queue}", task_queue=task_queue
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )
    try:
        return await temporal.create_schedule(schedule_id, schedule)
    except ScheduleAlreadyRunningError:
        return temporal.get_schedule_handle(schedule_id)
