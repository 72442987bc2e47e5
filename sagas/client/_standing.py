"""How a saga stands, decided in one place for `sagas list` and `sagas view` alike: from its
workflow's run, its recovery workflow (once Temporal closed that run from outside) and what
each carries (the `SagaStatus` and `SagaWaitingOn` search attributes, the memo `money`).

A killed execution keeps the status it showed when it was closed; its recovery carries the
saga's status from then on: KILLED until two operators approve it, then the status of the
recovery running as the saga (COMPENSATED, COMPLETED, or parked in NEEDS_ATTENTION).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from temporalio.client import WorkflowExecution, WorkflowExecutionStatus

from sagas.codec import PayloadDecryptionError
from sagas.engine import (
    MONEY_MEMO,
    OPEN_SAGA_STATUSES,
    SAGA_STATUS,
    SAGA_TYPE,
    SAGA_WAITING_ON,
    SAGA_WAITING_SINCE,
    SagaMoney,
    SagaStatus,
    killed_saga_id,
)

log = logging.getLogger("fundsaga.client")

CLOSED_FROM_OUTSIDE = {
    WorkflowExecutionStatus.TERMINATED: "Terminated",
    WorkflowExecutionStatus.TIMED_OUT: "TimedOut",
    WorkflowExecutionStatus.FAILED: "Failed",
    WorkflowExecutionStatus.CANCELED: "Canceled",
}
"""How an execution closed that the engine did not close, by its Temporal status."""
DELETED = "Deleted"
"""How a saga whose execution Temporal no longer knows is shown closed."""


@dataclass(frozen=True)
class SagaStanding:
    """A saga's status as `sagas list` and `sagas view` both show it (see `saga_standing`)."""

    status: SagaStatus
    waiting_on: str | None = None
    """The fault of the infrastructure it waits out now (an error type); it goes on by itself."""
    waiting_since: datetime | None = None
    killed_as: str | None = None
    """How Temporal closed its execution from outside (Terminated, TimedOut, Failed, Canceled,
    Deleted); None when it was not killed."""
    recovery_id: str | None = None
    """Its recovery workflow (`recovery:<saga id>`), once the killed saga has one."""

    def text(self) -> str:
        """`COMPENSATED`, `RUNNING, waiting on DatabaseBusyError`, `KILLED (Terminated)`,
        `COMPENSATED, recovered (Terminated)`."""
        shown = self.status.value
        if self.killed_as is not None and self.status is not SagaStatus.KILLED:
            done = "recovered" if self.status.is_terminal else "recovering"
            shown = f"{shown}, {done} ({self.killed_as})"
        elif self.killed_as is not None:
            shown = f"{shown} ({self.killed_as})"
        if self.waiting_on:
            shown = f"{shown}, waiting on {self.waiting_on}"
        return shown


def saga_standing(
    saga: WorkflowExecution | None, recovery: WorkflowExecution | None = None
) -> SagaStanding:
    """The one decision of a saga's status, from its run (None: deleted while open) and its
    recovery (None: it has none).

    The run's `SagaStatus`, unless Temporal closed the run while that status was open: then
    KILLED, or once it has a recovery, the recovery's status. Waiting on the infrastructure
    only while the run (or the recovery running as the saga) is open.
    """
    if saga is None:
        if recovery is None:
            raise ValueError("a saga's standing needs its run or its recovery")
        return _by_recovery(recovery, DELETED)
    shown = SagaStatus(saga.typed_search_attributes.get(SAGA_STATUS) or SagaStatus.RUNNING)
    killed_as = CLOSED_FROM_OUTSIDE.get(saga.status) if saga.status is not None else None
    if killed_as is None or shown not in OPEN_SAGA_STATUSES:
        return SagaStanding(shown, *_waiting(saga))
    if recovery is None:
        return SagaStanding(SagaStatus.KILLED, killed_as=killed_as)
    return _by_recovery(recovery, killed_as)


def is_killed(saga: WorkflowExecution) -> bool:
    """Closed by Temporal while the engine still showed it open: its recovery tells the rest."""
    return saga_standing(saga).status is SagaStatus.KILLED


def _by_recovery(recovery: WorkflowExecution, killed_as: str) -> SagaStanding:
    attributes = recovery.typed_search_attributes
    status = SagaStatus(attributes.get(SAGA_STATUS) or SagaStatus.KILLED)
    return SagaStanding(status, *_waiting(recovery), killed_as=killed_as, recovery_id=recovery.id)


def _waiting(execution: WorkflowExecution) -> tuple[str | None, datetime | None]:
    if execution.status is not WorkflowExecutionStatus.RUNNING:
        return None, None
    attributes = execution.typed_search_attributes
    fault = attributes.get(SAGA_WAITING_ON) or None
    return fault, attributes.get(SAGA_WAITING_SINCE) if fault else None


@dataclass(frozen=True)
class ListedSaga:
    """A saga as `sagas list` shows it, and `sagas view` heads it: its standing and money."""

    saga_id: str
    saga_type: str
    standing: SagaStanding
    money: SagaMoney

    @property
    def status(self) -> SagaStatus:
        return self.standing.status

    @property
    def key(self) -> str:
        """The caller's idempotency key inside the saga id (`<saga type>-<key>`)."""
        return self.saga_id.removeprefix(f"{self.saga_type}-")


async def listed_saga(
    saga: WorkflowExecution | None, recovery: WorkflowExecution | None = None
) -> ListedSaga:
    """The saga of this run and recovery (at least one of them), its money from the run's memo
    (none for a deleted run, whose memo went with it)."""
    known = saga if saga is not None else recovery
    assert known is not None
    saga_id = known.id if saga is not None else (killed_saga_id(known.id) or known.id)
    saga_type = known.typed_search_attributes.get(SAGA_TYPE) or ""
    money = await money_in_memo(saga) if saga is not None else SagaMoney()
    return ListedSaga(saga_id, saga_type, saga_standing(saga, recovery), money)


async def money_in_memo(execution: WorkflowExecution) -> SagaMoney:
    """The saga's money as its starter kept it in the memo; none when it kept none, or when
    this client cannot read the deployment's payloads (logged)."""
    try:
        value = await execution.memo_value(MONEY_MEMO, None)
    except (KeyError, RuntimeError, PayloadDecryptionError) as unreadable:
        log.warning("money of %s not shown: its memo is unreadable (%s)", execution.id, unreadable)
        return SagaMoney()
    return SagaMoney.from_memo(value)
