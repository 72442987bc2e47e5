"""The launcher a schedule starts: one saga per local nominal time, as a child it abandons."""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import (
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

from sagas.engine._audit_trail import AUDIT_COMPLETED_MEMO
from sagas.engine._definition import SagaRequest, saga_id
from sagas.engine._metrics import scheduled_run_ended
from sagas.engine._outcome import SagaOutcome
from sagas.engine._saga_money import MONEY_MEMO
from sagas.engine._schedule_launch import (
    FINGERPRINT_MEMO,
    SCHEDULED_START_TIME,
    ScheduledLaunch,
    ScheduledRun,
    local_nominal_time,
    scheduled_key,
)
from sagas.engine._search_attributes import SAGA_STATUS, SAGA_TYPE, deadline_pair
from sagas.engine._status import SagaStatus
from sagas.foundations import canonical_json, sha256_hex

_SCHEDULED_START = SearchAttributeKey.for_datetime(SCHEDULED_START_TIME)
_DEFAULT_DEADLINE = SagaRequest.model_fields["deadline_seconds"].default


async def launch_scheduled(launch: ScheduledLaunch) -> ScheduledRun:
    """Start the saga for the time this run was scheduled for, in the schedule's zone, and
    wait for its outcome. A saga id already taken means that local time ran: nothing moves."""
    info = workflow.info()
    scheduled = info.typed_search_attributes.get(_SCHEDULED_START) or info.start_time
    local_time = local_nominal_time(scheduled, launch.zone)
    key = scheduled_key(launch.schedule_id, local_time)
    request = {**launch.request, "idempotency_key": key}
    child_id = saga_id(launch.saga_type, key)
    deadline = request.get("deadline_seconds", _DEFAULT_DEADLINE)
    try:
        handle = await workflow.start_child_workflow(
            launch.workflow_type,
            request,
            id=child_id,
            result_type=SagaOutcome,
            parent_close_policy=ParentClosePolicy.ABANDON,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            memo={
                FINGERPRINT_MEMO: sha256_hex(canonical_json(request)),
                AUDIT_COMPLETED_MEMO: launch.audit_completed,
                **({} if launch.money is None else {MONEY_MEMO: launch.money}),
            },
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(SAGA_TYPE, launch.saga_type),
                    SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
                    deadline_pair(workflow.now(), int(deadline or _DEFAULT_DEADLINE)),
                ]
            ),
            static_summary=f"{launch.saga_type} {key}",
        )
    except WorkflowAlreadyStartedError:
        scheduled_run_ended(launch.saga_type, launch.schedule_id, "DUPLICATE")
        return ScheduledRun(
            saga_id=child_id, local_time=local_time, status=None, note="that time already ran"
        )
    try:
        outcome = await handle
    except ChildWorkflowError:
        scheduled_run_ended(launch.saga_type, launch.schedule_id, "FAILED")
        raise
    scheduled_run_ended(launch.saga_type, launch.schedule_id, outcome.status.value)
    note = outcome.failure.message if outcome.failure else ""
    return ScheduledRun(saga_id=child_id, local_time=local_time, status=outcome.status, note=note)
