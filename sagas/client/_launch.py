"""What a start did: a new run of the saga, or the saga its key already names, as it stands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio.client import WorkflowExecutionDescription, WorkflowExecutionStatus, WorkflowHandle

from sagas.engine import OPEN_SAGA_STATUSES, SAGA_STATUS, SagaOutcome, SagaStatus

GOING = frozenset({SagaStatus.RUNNING, SagaStatus.COMPENSATING})
"""Open and moving by itself: a start that finds one is an idempotent repeat."""


@dataclass(frozen=True)
class Launch:
    """The saga a start leads to, and whether this start began it."""

    handle: WorkflowHandle[Any, SagaOutcome]
    started: bool
    """True when this start began a run; False when the key's saga already existed."""
    status: SagaStatus
    """RUNNING when started; else the existing saga's status (KILLED when Temporal closed it
    from outside while it was open)."""

    @property
    def going(self) -> bool:
        """Started now, or found running or compensating: nothing is needed from the caller."""
        return self.status in GOING


def shown_status(description: WorkflowExecutionDescription) -> SagaStatus:
    """The saga status of a described run: its search attribute, KILLED when its execution
    closed while the engine still showed it open."""
    shown = SagaStatus(description.typed_search_attributes.get(SAGA_STATUS) or "RUNNING")
    closed = description.status is not WorkflowExecutionStatus.RUNNING
    return SagaStatus.KILLED if closed and shown in OPEN_SAGA_STATUSES else shown
