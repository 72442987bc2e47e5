"""What Temporal's histories say each account operator action did: the results of the worker's
status and limit activities, which the workflow runs only once the operator is verified.

The audit record of an account action copies that result; a record signed with the worker's key
and naming a workflow that never ran such an activity (a refused action, a saga) is no witness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pydantic import JsonValue
from temporalio.api.common.v1 import Payload
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from sagas.audit import AuditRecord
from sagas.codec import PayloadDecryptionError
from sagas.engine import ACCOUNT_LIMIT_ACTIVITY, ACCOUNT_STATUS_ACTIVITY, AuditKind

ACCOUNT_ACTIVITIES = frozenset({ACCOUNT_STATUS_ACTIVITY, ACCOUNT_LIMIT_ACTIVITY})
ACCOUNT_KINDS = frozenset(
    {
        AuditKind.ACCOUNT_FROZEN,
        AuditKind.ACCOUNT_UNFROZEN,
        AuditKind.ACCOUNT_CLOSED,
        AuditKind.ACCOUNT_LIMIT_SET,
    }
)
"""The records of account actions, each naming its workflow (its dedupe key)."""


@dataclass(frozen=True)
class ActionHistories:
    """The account activities' results in each operator action's history that was read."""

    results: Mapping[str, tuple[dict[str, JsonValue], ...]] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)
    """Histories whose results could not be decoded, with why (sealed without payload keys)."""

    def problem(self, record: AuditRecord) -> str | None:
        """Why the history of the action `record` names does not show what it records; None
        when it does, or when that history was not read."""
        workflow = record.dedupe_key
        why = self.unreadable.get(workflow)
        if why is not None:
            return f"the history of {workflow} cannot be read: {why}"
        results = self.results.get(workflow)
        if results is None:
            return None
        if any(all(record.payload.get(k) == v for k, v in r.items()) for r in results):
            return None
        return (
            f"the history of {workflow} shows no worker applying what record {record.sequence} "
            "says: a record written without the action"
        )


async def read_action_histories(
    temporal: Client, records: Iterable[AuditRecord]
) -> ActionHistories:
    """The account activities' results in the history of each operator action an account
    action record names, where Temporal still holds it."""
    results: dict[str, tuple[dict[str, JsonValue], ...]] = {}
    unreadable: dict[str, str] = {}
    for workflow_id in sorted({r.dedupe_key for r in records if r.kind in ACCOUNT_KINDS}):
        try:
            history = await temporal.get_workflow_handle(workflow_id).fetch_history()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                continue
            raise
        try:
            results[workflow_id] = await _results(temporal, history.events)
        except (PayloadDecryptionError, KeyError, RuntimeError, TypeError, ValueError) as err:
            unreadable[workflow_id] = f"{type(err).__name__}: {err}"
    return ActionHistories(results, unreadable)


async def _results(
    temporal: Client, events: Iterable[HistoryEvent]
) -> tuple[dict[str, JsonValue], ...]:
    scheduled: set[int] = set()
    payloads: list[Payload] = []
    for event in events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            if name in ACCOUNT_ACTIVITIES:
                scheduled.add(event.event_id)
        elif event.HasField("activity_task_completed_event_attributes"):
            completed = event.activity_task_completed_event_attributes
            if completed.scheduled_event_id in scheduled:
                payloads += completed.result.payloads
    decoded = await temporal.data_converter.decode(payloads, [dict] * len(payloads))
    return tuple(result for result in decoded if isinstance(result, dict))
