"""The workflows behind schedules: the launcher each fire starts, and the audit record of an
operator's action on a schedule, written through the worker that holds the signing key."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import JsonValue

    from sagas.engine import (
        AuditKind,
        ScheduledLaunch,
        ScheduledRun,
        launch_scheduled,
        write_audit_record,
    )

SCHEDULE_SAGA_TYPE = "schedule"
"""The `saga_type` of a schedule's audit records: they are about a schedule, not a saga."""


@workflow.defn(name="ScheduledSaga")
class ScheduledSagaWorkflow:
    """Starts the saga of one local nominal time of a schedule and waits for its outcome."""

    @workflow.run
    async def run(self, launch: ScheduledLaunch) -> ScheduledRun:
        return await launch_scheduled(launch)


@workflow.defn(name="ScheduleOperatorAction")
class ScheduleAuditWorkflow:
    """Writes the audit record of one operator action on a schedule (pause, resume, ...)."""

    @workflow.run
    async def run(self, kind: AuditKind, schedule_id: str, payload: dict[str, JsonValue]) -> None:
        await write_audit_record(
            kind, schedule_id, SCHEDULE_SAGA_TYPE, workflow.info().workflow_id, payload
        )
