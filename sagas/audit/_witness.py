"""Temporal as the independent witness of the audit trail.

The audit activity returns each record's sequence number and hash, so they sit in the saga's
Temporal history, out of reach of whoever can write the audit store. Comparing the store with
those histories finds a deleted tail or a re-hashed history with no file kept by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from temporalio.api.common.v1 import Payload
from temporalio.client import Client

from sagas.audit._record import AuditRecord
from sagas.engine import (
    AUDIT_ACTIVITY,
    BREAK_RESOLUTION_WORKFLOW,
    FUNDING_WORKFLOW,
    OPERATOR_ACTION_WORKFLOW,
    SAGA_TYPE,
    AuditReceipt,
)
from sagas.foundations import InvalidRequestError

SCHEDULE_ACTION_WORKFLOW = "ScheduleOperatorAction"
"""Wrote the audit record of an operator's action on a schedule, before operator proofs."""
OPERATOR_ACTION_WORKFLOWS = (
    SCHEDULE_ACTION_WORKFLOW,
    OPERATOR_ACTION_WORKFLOW,
    FUNDING_WORKFLOW,
    BREAK_RESOLUTION_WORKFLOW,
)
"""The workflows that write audit records of operator actions outside a saga
(workflows/schedules.py, workflows/operator_actions.py)."""


@dataclass(frozen=True)
class Witnessed:
    """A record as a saga's history saw it written."""

    saga_id: str
    run_id: str
    receipt: AuditReceipt


async def witnessed_records(temporal: Client, task_queue: str) -> list[Witnessed]:
    """Every audit receipt in the histories Temporal still holds, of every saga type run on
    the task queue (the deployment whose audit store is checked), and of the operator actions
    on its schedules. Receipts are decoded as every payload is: encrypted ones too."""
    found: list[Witnessed] = []
    query = (
        f"({SAGA_TYPE.name} IS NOT NULL OR WorkflowType IN ({_quoted(OPERATOR_ACTION_WORKFLOWS)})) "
        f"AND TaskQueue = '{task_queue}'"
    )
    async for execution in temporal.list_workflows(query):
        handle = temporal.get_workflow_handle(execution.id, run_id=execution.run_id)
        history = await handle.fetch_history()
        audit_scheduled: set[int] = set()
        for event in history.events:
            if event.HasField("activity_task_scheduled_event_attributes"):
                scheduled = event.activity_task_scheduled_event_attributes
                if scheduled.activity_type.name == AUDIT_ACTIVITY:
                    audit_scheduled.add(event.event_id)
            elif event.HasField("activity_task_completed_event_attributes"):
                completed = event.activity_task_completed_event_attributes
                if completed.scheduled_event_id in audit_scheduled:
                    receipt = await _receipt(temporal, execution.id, completed.result.payloads)
                    found.append(Witnessed(execution.id, execution.run_id, receipt))
    return found


async def _receipt(temporal: Client, saga: str, payloads: Sequence[Payload]) -> AuditReceipt:
    """A receipt is public (readable with the audit public keys only) since receipts were
    made so; one written before, encrypted, needs the payload keys."""
    try:
        decoded: list[AuditReceipt] = await temporal.data_converter.decode(payloads, [AuditReceipt])
    except KeyError:
        raise InvalidRequestError(
            "FUNDSAGA_PAYLOAD_KEYS",
            f"an audit receipt in the history of {saga} is encrypted (written before receipts "
            "were public): set the deployment's payload keys to read it",
        ) from None
    return decoded[0]


def witness_findings(records: Iterable[AuditRecord], witnessed: Iterable[Witnessed]) -> list[str]:
    """Records Temporal saw written that the store no longer holds as written."""
    by_sequence = {record.sequence: record for record in records}
    findings: list[str] = []
    for seen in sorted(witnessed, key=lambda w: w.receipt.sequence):
        sequence = seen.receipt.sequence
        stored = by_sequence.get(sequence)
        if stored is None:
            findings.append(
                f"record {sequence} of {seen.saga_id} (run {seen.run_id}) is in Temporal's "
                "history but not in the audit store"
            )
        elif stored.hash != seen.receipt.hash:
            findings.append(
                f"record {sequence} of {seen.saga_id} differs from the record Temporal saw "
                "written: the audit store was rewritten"
            )
    return findings


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(f"'{name}'" for name in names)
