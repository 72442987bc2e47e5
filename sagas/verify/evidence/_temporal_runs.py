"""Each audited saga's runs as Temporal's visibility lists them, on whatever task queue they ran:
a saga whose history sits on another queue than this deployment's is still known to Temporal."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus

from sagas.audit import AuditStore
from sagas.engine import OPEN_SAGA_STATUSES, SAGA_STATUS, SagaStatus
from sagas.verify.evidence._compensation_audit import closing_records

BATCH = 50
"""Saga ids per visibility query."""


@dataclass(frozen=True)
class TemporalRun:
    """One execution of a saga's workflow."""

    workflow_id: str
    run_id: str
    task_queue: str
    execution_status: str
    """As Temporal names it: RUNNING, COMPLETED, TERMINATED, ..."""
    saga_status: str
    """The SagaStatus the engine last showed in its search attribute."""
    started_at: datetime

    @property
    def shown(self) -> str:
        """Its saga status, KILLED when the execution closed while the engine showed it open."""
        closed = self.execution_status != WorkflowExecutionStatus.RUNNING.name
        if closed and self.saga_status in {s.value for s in OPEN_SAGA_STATUSES}:
            return SagaStatus.KILLED.value
        return self.saga_status


async def saga_runs(temporal: Client, store: AuditStore) -> dict[str, list[TemporalRun]]:
    """Every run, oldest first, of each saga the audit trail closed, on any task queue."""
    return await runs_of(temporal, closing_records(store.records()))


async def runs_of(temporal: Client, saga_ids: Iterable[str]) -> dict[str, list[TemporalRun]]:
    ids = sorted(set(saga_ids))
    found: dict[str, list[TemporalRun]] = {}
    for start in range(0, len(ids), BATCH):
        quoted = ", ".join(f"'{saga}'" for saga in ids[start : start + BATCH])
        async for execution in temporal.list_workflows(f"WorkflowId IN ({quoted})"):
            found.setdefault(execution.id, []).append(_run(execution))
    return {saga: sorted(runs, key=lambda r: r.started_at) for saga, runs in found.items()}


def shown_statuses(runs: Mapping[str, Sequence[TemporalRun]]) -> dict[str, str]:
    """Per saga, the status its newest run shows."""
    return {saga: listed[-1].shown for saga, listed in runs.items() if listed}


def run_statuses(runs: Mapping[str, Sequence[TemporalRun]]) -> dict[str, str]:
    """The status each run shows, by run id: a reused key's runs each stand on their own."""
    return {run.run_id: run.shown for listed in runs.values() for run in listed}


def task_queues(runs: Mapping[str, Sequence[TemporalRun]]) -> list[str]:
    """The task queues the runs were seen on, sorted."""
    return sorted({run.task_queue for listed in runs.values() for run in listed})


def _run(execution: WorkflowExecution) -> TemporalRun:
    status = execution.status
    return TemporalRun(
        workflow_id=execution.id,
        run_id=execution.run_id,
        task_queue=execution.task_queue,
        execution_status=status.name if status is not None else "UNKNOWN",
        saga_status=execution.typed_search_attributes.get(SAGA_STATUS) or "",
        started_at=execution.start_time,
    )
