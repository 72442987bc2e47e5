"""What no single worker knows: parked and overdue sagas, the task queue's pollers and the
ledger's invariants, read from Temporal's visibility and the ledger by one collector.

A run has two parts, each collected whatever became of the other: the ledger's (its claims,
seal, invariants and breaks) and Temporal's (the backlogs, the pollers and the recovery of
killed sagas). An outage of one is reported beside what the other found, so the gauges of
sagas waiting on a database that is down are there while it is down."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from sagas.client import SagaRecoveries
from sagas.engine import (
    SAGA_DEADLINE,
    SAGA_STATUS,
    SAGA_STATUS_SINCE,
    SAGA_TYPE,
    SAGA_WAITING_ON,
    SAGA_WAITING_SINCE,
    RunClaim,
    SagaStatus,
)
from sagas.ledger import Ledger
from sagas.reconcile import Reconciliation
from sagas.servers._break_ages import OpenBreaks, open_breaks

POLLER_FRESHNESS = timedelta(minutes=2)
"""A poller counts when it polled this recently. The server remembers pollers for minutes after
they stop, and a long poll lasts about a minute, so a live worker is never older than this."""


DELETED_LOOKBACK = timedelta(hours=12)
"""How far back the collector looks for claimed sagas whose execution was deleted while open:
shorter than any namespace's retention, so a saga closed long ago is not taken for deleted."""
DELETED_GRACE = timedelta(minutes=1)
"""A claim this recent is not checked yet: visibility may not show its execution yet."""
DELETED_CHECKS = 1000
"""Claims checked per run at most, newest first (a visibility query per 50)."""


class PollerKind(StrEnum):
    WORKFLOW = "workflow"
    ACTIVITY = "activity"


_QUEUE_TYPES = {
    PollerKind.WORKFLOW: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    PollerKind.ACTIVITY: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
}


@dataclass(frozen=True)
class SagaTypeBacklog:
    saga_type: str
    needing_attention: int
    oldest_needing_attention: timedelta
    """How long the longest-parked saga of this type has been parked; zero when none is."""
    past_deadline: int
    """Sagas still RUNNING (not compensating, not parked) after their deadline passed."""
    waiting_on_infrastructure: int = 0
    """Sagas waiting out a fault of the infrastructure (the database down, say); they go on
    by themselves once it passes."""
    oldest_infrastructure_wait: timedelta = timedelta()
    """How long the longest of those waits has lasted; zero when no saga waits."""
    killed: int = 0
    """Sagas whose execution was closed from outside, their recovery not yet approved."""


@dataclass(frozen=True)
class Collection:
    task_queue: str
    backlogs: list[SagaTypeBacklog]
    """Empty when Temporal could not be read (see `temporal_error`)."""
    pollers: dict[PollerKind, int]
    """Empty when Temporal could not be read."""
    ledger_findings: list[str] | None
    """The ledger's invariant findings (empty when it is sound); None when not checked."""
    breaks: list[OpenBreaks] = field(default_factory=list)
    """Reconciliation breaks not closed, by kind; empty when no ledger is watched or read."""
    ledger_watched: bool = False
    """Whether this collector reads a ledger at all (FUNDSAGA_LEDGER_CHECK_SECONDS not 0)."""
    ledger_error: str | None = None
    """Why the ledger's part failed (`ErrorType: message`), its findings and breaks then not
    known; None when it ran or no ledger is watched."""
    temporal_error: str | None = None
    """Why Temporal's part failed, its backlogs and pollers then not known; None when it ran."""


@dataclass(frozen=True)
class _LedgerPart:
    claims: list[RunClaim]
    findings: list[str] | None
    breaks: list[OpenBreaks]


@dataclass(frozen=True)
class _TemporalPart:
    backlogs: list[SagaTypeBacklog]
    pollers: dict[PollerKind, int]


def _failure_text(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"


class VisibilityCollector:
    """Asks Temporal (count and list queries on the custom search attributes) and the ledger;
    every figure is for the sagas on one task queue. Each run also starts the recovery of every
    saga it finds killed (closed from outside while the engine showed it open)."""

    def __init__(
        self, temporal: Client, task_queue: str, saga_types: Iterable[str], ledger: Ledger | None
    ) -> None:
        self._temporal = temporal
        self._task_queue = task_queue
        self._saga_types = sorted(set(saga_types))
        self._ledger = ledger
        self._recoveries = SagaRecoveries(temporal, task_queue)

    async def collect(self, now: datetime, *, check_ledger: bool) -> Collection:
        """Both parts of a run; a part that fails is reported in the collection, never raised."""
        ledger: _LedgerPart | None = None
        ledger_error = None
        if self._ledger is not None:
            try:
                ledger = await asyncio.to_thread(self._ledger_part, self._ledger, now, check_ledger)
            except Exception as err:  # the database unreachable: Temporal's part still counts
                ledger_error = _failure_text(err)
        temporal_error = None
        try:
            temporal = await self._temporal_part(now, ledger.claims if ledger else [])
        except Exception as err:  # Temporal unreachable: the ledger's part still counts
            temporal, temporal_error = _TemporalPart([], {}), _failure_text(err)
        return Collection(
            self._task_queue,
            temporal.backlogs,
            temporal.pollers,
            ledger.findings if ledger else None,
            ledger.breaks if ledger else [],
            ledger_watched=self._ledger is not None,
            ledger_error=ledger_error,
            temporal_error=temporal_error,
        )

    def _ledger_part(self, ledger: Ledger, now: datetime, check: bool) -> _LedgerPart:
        claims = ledger.claims_between(
            now - DELETED_LOOKBACK, now - DELETED_GRACE, limit=DELETED_CHECKS
        )
        # Sealing here keeps the entries not yet chained to one collector interval.
        ledger.seal()
        findings = ledger.check_invariants() if check else None
        breaks = open_breaks(Reconciliation(ledger, ()).breaks(), now)
        return _LedgerPart(claims, findings, breaks)

    async def _temporal_part(self, now: datetime, claims: list[RunClaim]) -> _TemporalPart:
        # Recoveries of deleted sagas first, so that this run counts them as killed.
        await self._open_deleted(claims)
        backlogs = [await self._backlog(saga_type, now) for saga_type in self._saga_types]
        pollers = {kind: await self._pollers(kind, now) for kind in PollerKind}
        return _TemporalPart(backlogs, pollers)

    async def _backlog(self, saga_type: str, now: datetime) -> SagaTypeBacklog:
        parked = self._query(saga_type, f"{SAGA_STATUS.name} = '{SagaStatus.NEEDS_ATTENTION}'")
        oldest = now
        count = 0
        async for execution in self._temporal.list_workflows(parked):
            count += 1
            since = execution.typed_search_attributes.get(SAGA_STATUS_SINCE)
            oldest = min(oldest, since or execution.start_time)
        overdue = self._query(
            saga_type,
            f"{SAGA_STATUS.name} = '{SagaStatus.RUNNING}'",
            f"{SAGA_DEADLINE.name} < '{now.isoformat()}'",
        )
        past_deadline = (await self._temporal.count_workflows(overdue)).count
        waiting, longest = await self._waiting(saga_type, now)
        killed = await self._killed(saga_type)
        parked_for = max(now - oldest, timedelta())
        return SagaTypeBacklog(
            saga_type, count, parked_for, past_deadline, waiting, longest, killed=killed
        )

    async def _waiting(self, saga_type: str, now: datetime) -> tuple[int, timedelta]:
        waiting = self._query(saga_type, f"{SAGA_WAITING_ON.name} != ''")
        count = 0
        oldest = now
        async for execution in self._temporal.list_workflows(waiting):
            count += 1
            oldest = min(oldest, execution.typed_search_attributes.get(SAGA_WAITING_SINCE) or now)
        return count, max(now - oldest, timedelta())

    async def _killed(self, saga_type: str) -> int:
        """Start the recovery of each newly killed saga; how many await their operators."""
        started = await self._recoveries.open_recoveries(saga_type)
        awaiting = {saga for saga, _ in await self._recoveries.awaiting(saga_type)}
        return len(awaiting | set(started))

    async def _open_deleted(self, claims: list[RunClaim]) -> None:
        """Start the recovery of each saga of these types that claimed its id in the last
        DELETED_LOOKBACK (the ledger's claims) and whose execution Temporal no longer knows."""
        ours = [claim for claim in claims if claim.saga_type in self._saga_types]
        await self._recoveries.open_deleted(ours)

    def _query(self, saga_type: str, *clauses: str) -> str:
        return " AND ".join(
            (
                f"{SAGA_TYPE.name} = '{saga_type}'",
                f"TaskQueue = '{self._task_queue}'",
                "ExecutionStatus = 'Running'",
                *clauses,
            )
        )

    async def _pollers(self, kind: PollerKind, now: datetime) -> int:
        described = await self._temporal.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace=self._temporal.namespace,
                task_queue=TaskQueue(name=self._task_queue),
                task_queue_type=_QUEUE_TYPES[kind],
            )
        )
        recent = now - POLLER_FRESHNESS
        return len(
            {
                poller.identity
                for poller in described.pollers
                if poller.last_access_time.ToDatetime(now.tzinfo) >= recent
            }
        )
