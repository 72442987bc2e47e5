"""How a saga waits out a fault of its infrastructure: a durable timer between runs of the step
or compensation, and the time the wait began in a search attribute that the collector counts.
Such a fault never parks a saga: only a compensation that failed for good, or a step that failed
past the pivot or that its inquiry could not settle, needs a person."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

from temporalio import workflow

from sagas.engine._metrics import infrastructure_wait_began
from sagas.engine._retry import InfrastructureWait
from sagas.engine._search_attributes import SAGA_WAITING_ON, SAGA_WAITING_SINCE
from sagas.engine._status import Phase
from sagas.engine._workflow_util import uncancellable

INFRASTRUCTURE_WAITS_PATCH = "fundsaga.infrastructure-waits"
"""Marks a saga that waits out infrastructure faults. A history recorded before sagas did ran
out of retries and parked (or compensated) instead; on replay it still does."""
SHORTEST_WAIT = timedelta(milliseconds=1)


class RunFailure(Protocol):
    """What a run of a step's activity that failed tells of itself."""

    @property
    def error_type(self) -> str: ...

    @property
    def attempts(self) -> int: ...


class InfrastructureWaits:
    """The wait of one step or compensation at a time: how many runs it took, since when."""

    def __init__(self, saga_type: str, on_change: Callable[[], None]) -> None:
        self._saga_type = saga_type
        self._on_change = on_change
        self.since: datetime | None = None
        self.waits = 0
        self.error_type = ""
        self.earlier_attempts = 0
        """Attempts made by the runs before the next one; they count on across runs."""

    @staticmethod
    def enabled() -> bool:
        """Whether this saga waits (its history carries the marker, or it is being recorded)."""
        return workflow.patched(INFRASTRUCTURE_WAITS_PATCH)

    async def wait_out(
        self, failed: RunFailure, phase: Phase, wait: InfrastructureWait, until: timedelta | None
    ) -> bool:
        """Wait before the next run; False when `wait` allows no more (its max_retries).

        `until` bounds the wait (the time to the saga's deadline); None waits in full."""
        if wait.exhausted_after(self.waits):
            return False
        self.waits += 1
        self.earlier_attempts = max(self.earlier_attempts, failed.attempts)
        if self.since is None:
            self.since = workflow.now()
            infrastructure_wait_began(self._saga_type, phase.value, failed.error_type)
        if failed.error_type != self.error_type:
            self.error_type = failed.error_type
            workflow.upsert_search_attributes(
                [
                    SAGA_WAITING_ON.value_set(self.error_type),
                    SAGA_WAITING_SINCE.value_set(self.since),
                ]
            )
        delay = wait.delay_before_retry(self.waits)
        if until is not None:
            delay = max(min(delay, until), SHORTEST_WAIT)
        self._on_change()
        sleeping = workflow.sleep(delay)
        # A compensation runs to its end whatever the saga is asked; a step's wait stops
        # with the step when the saga is cancelled before its pivot.
        await (uncancellable(sleeping) if phase is Phase.COMPENSATION else sleeping)
        return True

    def over(self) -> None:
        """The step or compensation ran: it no longer waits."""
        self.earlier_attempts = 0
        if self.since is None:
            return
        workflow.upsert_search_attributes([SAGA_WAITING_ON.value_set("")])
        self.since = None
        self.waits = 0
        self.error_type = ""
        self._on_change()

    def describe(self) -> str | None:
        if self.since is None:
            return None
        return (
            f"{self.error_type} since {self.since.isoformat(timespec='seconds')} "
            f"({self.waits} {'wait' if self.waits == 1 else 'waits'}); it goes on by itself"
        )
