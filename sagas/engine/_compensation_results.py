"""What a compensation's completion records in Temporal's history: the step it undid, as JSON.

A compensation activity returns nothing; Temporal would store that as a `binary/null` payload,
which the Web UI shows as raw base64. The worker's `ReadableCompensations` interceptor puts an
`UndoneStep` in its place, so the history (decoded by the codec server when payloads are
encrypted) says in words what was undone. The workflow never reads it: histories recorded
before replay unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from sagas.engine._definition import StepCall
from sagas.engine._outcome import CompensationResult
from sagas.engine._status import Phase


class UndoneStep(BaseModel, frozen=True):
    """The result of a compensation that ended without error."""

    # In this order: the Web UI's event list shows a result's first 60 characters.
    result: CompensationResult = CompensationResult.COMPENSATED
    step_name: str
    compensation: str
    """The compensation's activity type."""
    attempt: int
    """The attempt that succeeded, counting earlier runs of the compensation."""
    saga_id: str
    saga_type: str


class ReadableCompensations(Interceptor):
    """The worker interceptor that records each finished compensation as an `UndoneStep`."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ReadableCompensation(next)


class _ReadableCompensation(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        result = await self.next.execute_activity(input)
        call = input.args[0] if len(input.args) == 1 else None
        if result is not None or not isinstance(call, StepCall):
            return result
        if call.phase is not Phase.COMPENSATION:
            return result
        return UndoneStep(
            saga_id=call.saga_id,
            saga_type=call.saga_type,
            step_name=call.step_name,
            compensation=activity.info().activity_type,
            attempt=call.earlier_attempts + activity.info().attempt,
        )
