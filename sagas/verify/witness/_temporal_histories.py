"""Temporal's histories as the witness of the ledger: the ledger receipts they hold.

Every activity that wrote or replayed journal entries names them (idempotency key and entry
hash) on its completion, or on its final failure (sagas.engine's `LedgerReceipts`). Reading
every history of the deployment's task queue gives what Temporal saw written, out of reach of
whoever owns the ledger's database. Receipts are public: no payload key is needed.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property

from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.api.history.v1 import HistoryEvent
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from sagas.engine import EntryReceipt, UnreadableReceiptError, killed_saga_id, receipt_of

LOCAL_ACTIVITY_RESULT = "result"
"""The details field of a local activity's marker that holds its result payloads."""
_ACTIVITY_ENDS = (
    "activity_task_completed_event_attributes",
    "activity_task_failed_event_attributes",
    "activity_task_timed_out_event_attributes",
    "activity_task_canceled_event_attributes",
)
_TASK_ENDS = (
    "workflow_task_completed_event_attributes",
    "workflow_task_failed_event_attributes",
    "workflow_task_timed_out_event_attributes",
)


@dataclass(frozen=True)
class SeenEntry:
    """An entry as one workflow's history saw it written or replayed."""

    workflow_id: str
    run_id: str
    receipt: EntryReceipt

    @property
    def history_of(self) -> str:
        """The saga (or funding) whose history this is: a recovery's is its killed saga's."""
        return history_of(self.workflow_id)


@dataclass(frozen=True)
class TemporalWitness:
    """What Temporal holds of a deployment: every workflow id on its task queue, and every
    ledger receipt in their histories."""

    workflows: frozenset[str]
    seen: tuple[SeenEntry, ...]
    problems: tuple[str, ...] = ()
    """Receipts that could not be read, each as a finding."""
    retention: timedelta | None = None
    """The namespace's retention of closed histories; None when the server did not say."""
    read_at: datetime | None = None
    """When this reading began, by the verifier's own clock."""
    in_flight: frozenset[str] = field(default_factory=frozenset)
    """Sagas (and fundings) still running an activity or a workflow task: an entry one of
    them wrote may not have reached its history yet."""

    def knows(self, saga_or_funding: str) -> bool:
        """Whether Temporal still holds a history of it (its own, or its recovery's)."""
        return saga_or_funding in self._histories

    def must_know(self, written_at: datetime) -> bool:
        """Deprecated: judges by a time the writer chose; use `retention_ended` with anchors
        (`AnchoredReach`). Goes in the next minor release."""
        warnings.warn(
            "TemporalWitness.must_know judges by a writer's time; use AnchoredReach",
            DeprecationWarning,
            stacklevel=2,
        )
        ended = self.retention_ended
        return ended is None or written_at > ended

    @property
    def retention_ended(self) -> datetime | None:
        """When the retention ended, as of this reading: a workflow that closed before then
        may be gone. None when the server did not say how long it keeps histories (then no
        history may be gone: every saga must be there)."""
        if self.retention is None or self.read_at is None:
            return None
        return self.read_at - self.retention

    @cached_property
    def _histories(self) -> frozenset[str]:
        return frozenset(history_of(workflow) for workflow in self.workflows)


def history_of(workflow_id: str) -> str:
    """The saga or funding a workflow's history is about: a recovery's is its killed saga."""
    return killed_saga_id(workflow_id) or workflow_id


async def temporal_witness(temporal: Client, task_queue: str) -> TemporalWitness:
    """Every history on the task queue: sagas of every type, their recoveries, fundings."""
    reading = _Reading(temporal)
    async for execution in temporal.list_workflows(f"TaskQueue = '{task_queue}'"):
        await reading.read(execution.id, execution.run_id, execution.status)
    return await reading.done()


async def looked_up(
    witness: TemporalWitness, temporal: Client, task_queue: str, workflow_ids: Iterable[str]
) -> TemporalWitness:
    """`witness` with the histories of `workflow_ids` it lacks, asked for by id: Temporal's list
    of workflows lags behind their starts."""
    reading = _Reading(temporal)
    for workflow_id in sorted(set(workflow_ids) - witness.workflows):
        try:
            described = await temporal.get_workflow_handle(workflow_id).describe()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                continue
            raise
        if described.task_queue == task_queue:
            await reading.read(workflow_id, described.run_id, described.status)
    found = await reading.done()
    return replace(
        witness,
        workflows=witness.workflows | found.workflows,
        seen=witness.seen + found.seen,
        problems=witness.problems + found.problems,
        in_flight=witness.in_flight | found.in_flight,
    )


@dataclass
class _Reading:
    temporal: Client
    read_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    workflows: set[str] = field(default_factory=set)
    seen: list[SeenEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    in_flight: set[str] = field(default_factory=set)

    async def read(
        self, workflow_id: str, run_id: str, status: WorkflowExecutionStatus | None
    ) -> None:
        self.workflows.add(workflow_id)
        handle = self.temporal.get_workflow_handle(workflow_id, run_id=run_id)
        events = (await handle.fetch_history()).events
        if status is WorkflowExecutionStatus.RUNNING and in_flight(events):
            self.in_flight.add(history_of(workflow_id))
        for payload in receipt_payloads(events):
            try:
                receipts = receipt_of(payload)
            except UnreadableReceiptError as err:
                where = f"{workflow_id} (run {run_id})"
                self.problems.append(f"{where}: a ledger receipt that cannot be read: {err}")
                continue
            self.seen += [SeenEntry(workflow_id, run_id, receipt) for receipt in receipts]

    async def done(self) -> TemporalWitness:
        return TemporalWitness(
            frozenset(self.workflows),
            tuple(self.seen),
            tuple(self.problems),
            await namespace_retention(self.temporal),
            self.read_at,
            frozenset(self.in_flight),
        )


async def namespace_retention(temporal: Client) -> timedelta | None:
    """How long the namespace keeps closed histories; None when the server does not say (the
    time-skipping test server) or the caller may not describe the namespace."""
    try:
        described = await temporal.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=temporal.namespace)
        )
    except RPCError:
        return None
    if not described.config.HasField("workflow_execution_retention_ttl"):
        return None
    return described.config.workflow_execution_retention_ttl.ToTimedelta()


def in_flight(events: Sequence[HistoryEvent]) -> bool:
    """Whether an open history has an activity under way (scheduled, not ended) or a workflow
    task under way (a local activity's result is recorded only when its task completes)."""
    open_activities: set[int] = set()
    task_open = False
    for event in events:
        kind = event.WhichOneof("attributes")
        if kind == "activity_task_scheduled_event_attributes":
            open_activities.add(event.event_id)
        elif kind in _ACTIVITY_ENDS:
            open_activities.discard(getattr(event, kind).scheduled_event_id)
        elif kind == "workflow_task_scheduled_event_attributes":
            task_open = True
        elif kind in _TASK_ENDS:
            task_open = False
    return bool(open_activities) or task_open


def receipt_payloads(events: Sequence[HistoryEvent]) -> Iterator[Payload]:
    """The payloads of a history that may carry a ledger receipt: activity results (local
    activities' in their markers) and the details of final failures."""
    for event in events:
        if event.HasField("activity_task_completed_event_attributes"):
            yield from event.activity_task_completed_event_attributes.result.payloads
        elif event.HasField("activity_task_failed_event_attributes"):
            yield from _failure_details(event.activity_task_failed_event_attributes.failure)
        elif event.HasField("marker_recorded_event_attributes"):
            marker = event.marker_recorded_event_attributes
            if LOCAL_ACTIVITY_RESULT in marker.details:
                yield from marker.details[LOCAL_ACTIVITY_RESULT].payloads
            if marker.HasField("failure"):
                yield from _failure_details(marker.failure)


def _failure_details(failure: Failure) -> Iterator[Payload]:
    while True:
        yield from failure.application_failure_info.details.payloads
        if not failure.HasField("cause"):
            return
        failure = failure.cause
