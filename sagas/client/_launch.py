"""What a start did: a new run of the saga, or the saga its key already names, as it stands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio.client import WorkflowExecutionDescription, WorkflowHandle

from sagas.client._standing import saga_standing
from sagas.engine import SagaOutcome, SagaStatus

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
    """The saga status of a described run, as `saga_standing` decides it without its recovery:
    KILLED when its execution closed while the engine still showed it open."""
    return saga_standing(description).status
