"""The saga status enum, used by the workflow, the database, search attributes and the CLI."""

from __future__ import annotations

from enum import StrEnum


class SagaStatus(StrEnum):
    RUNNING = "RUNNING"  # steps are being taken
    COMPLETED = "COMPLETED"  # every step succeeded
    COMPENSATING = "COMPENSATING"  # the forward path stopped; compensations run in reverse order
    COMPENSATED = "COMPENSATED"  # every compensation succeeded: no net effect remains
    NEEDS_ATTENTION = "NEEDS_ATTENTION"  # parked on a compensation or a step; waits for an operator
    RESOLVED = "RESOLVED"  # operators resolved it by hand: one proposed, another approved
    REJECTED = "REJECTED"  # took no effect: its input was refused or its id was already used
    KILLED = "KILLED"  # its execution was closed from outside; waits for an operator's recovery

    @property
    def is_terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset(
    {SagaStatus.COMPLETED, SagaStatus.COMPENSATED, SagaStatus.RESOLVED, SagaStatus.REJECTED}
)


class Phase(StrEnum):
    """Which side of a step an activity runs; part of every effect key."""

    ACTION = "action"  # the step's effect
    COMPENSATION = "compensation"  # the undoing of that effect
