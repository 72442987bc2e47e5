"""The activities a worker is running now: what a stop that runs out of time names as left."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from sagas.engine import SagaDefinition


@dataclass(frozen=True)
class RunningActivity:
    activity_type: str
    saga_id: str
    step: str
    attempt: int
    started: float
    """time.monotonic() when this worker started the attempt."""

    def describe(self, now: float) -> str:
        return (
            f"{self.step} of saga {self.saga_id} (activity {self.activity_type}, attempt "
            f"{self.attempt}, running {now - self.started:.1f} s)"
        )


def steps_by_activity(definitions: Mapping[str, SagaDefinition[Any, Any]]) -> dict[str, str]:
    """Each step activity's type, to the step it runs: "transfer step debit (action)"."""
    named: dict[str, str] = {}
    for saga_type, definition in definitions.items():
        for step in definition.steps:
            roles = [("action", step.action), ("compensation", step.compensation)]
            roles.append(("inquiry", step.inquiry))
            for role, name in roles:
                if name is not None:
                    named.setdefault(name, f"{saga_type} step {step.name} ({role})")
    return named


class RunningActivities(Interceptor):
    """The worker interceptor that keeps the activities in hand; read from any thread."""

    def __init__(self, steps: Mapping[str, str] | None = None) -> None:
        self._steps = dict(steps or {})
        # Reentrant: a second stop signal's handler reads it on the thread it interrupted,
        # which may hold it.
        self._lock = threading.RLock()
        self._running: dict[int, RunningActivity] = {}
        self._next = 0

    def name_steps(self, steps: Mapping[str, str]) -> None:
        with self._lock:
            self._steps.update(steps)

    def now(self) -> list[RunningActivity]:
        with self._lock:
            return sorted(self._running.values(), key=lambda running: running.started)

    def describe(self) -> list[str]:
        """One line per running activity, the longest running first."""
        now = time.monotonic()
        return [running.describe(now) for running in self.now()]

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Tracked(next, self)

    def _started(self) -> int:
        info = activity.info()
        with self._lock:
            self._next += 1
            number = self._next
            step = self._steps.get(info.activity_type, f"activity {info.activity_type}")
            self._running[number] = RunningActivity(
                info.activity_type, info.workflow_id or "-", step, info.attempt, time.monotonic()
            )
        return number

    def _ended(self, number: int) -> None:
        with self._lock:
            self._running.pop(number, None)


class _Tracked(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, running: RunningActivities) -> None:
        super().__init__(next)
        self._running = running

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        number = self._running._started()
        try:
            return await self.next.execute_activity(input)
        finally:
            self._running._ended(number)
