"""Benchmark workflows: BARE (the ceiling) and NAIVE (a saga as Temporal's samples write one).

Registered only by the benchmark worker (tooling.bench), not in ALL_WORKFLOWS.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from sagas.transfer import ACTION_RETRY, COMPENSATION_RETRY, TRANSFER_SAGA, TransferRequest
    from tooling.baselines.activities import BareCall, NaiveActivities, NaiveCall, noop

STEP_TIMEOUT = TRANSFER_SAGA.steps[0].timeout
LOCAL_RETRY_THRESHOLD = timedelta(milliseconds=1)
"""As the engine's local steps: a backoff between attempts is a durable timer."""
STEP_NAMES = tuple(step.name for step in TRANSFER_SAGA.steps)


@workflow.defn(name="BenchBareWorkflow")
class BareWorkflow:
    """As many sequential no-op activities as the transfer saga has steps, same retry/timeout."""

    @workflow.run
    async def run(self, request: TransferRequest) -> str:
        workflow_id = workflow.info().workflow_id
        for step in STEP_NAMES:
            await workflow.execute_activity(
                noop,
                BareCall(workflow_id=workflow_id, step=step),
                start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=ACTION_RETRY.to_retry_policy(),
            )
        return "done"


@workflow.defn(name="BenchBareLocalWorkflow")
class BareLocalWorkflow:
    """BARE with every no-op a local activity, as ENGINE-LOCAL's steps are local activities."""

    @workflow.run
    async def run(self, request: TransferRequest) -> str:
        workflow_id = workflow.info().workflow_id
        for step in STEP_NAMES:
            await workflow.execute_local_activity(
                noop,
                BareCall(workflow_id=workflow_id, step=step),
                start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=ACTION_RETRY.to_retry_policy(),
                local_retry_threshold=LOCAL_RETRY_THRESHOLD,
            )
        return "done"


_Activity = Callable[[NaiveActivities, NaiveCall], None]


@workflow.defn(name="BenchNaiveTransferWorkflow")
class NaiveTransferWorkflow:
    """A try/except around the steps and a list of compensations, no snapshots, no engine."""

    @workflow.run
    async def run(self, request: TransferRequest) -> str:
        call = NaiveCall(saga_id=workflow.info().workflow_id, request=request)
        compensations: list[_Activity] = []
        try:
            compensations.append(NaiveActivities.compensate_reserve)
            await self._do(NaiveActivities.reserve, call)
            compensations.append(NaiveActivities.compensate_capture)
            await self._do(NaiveActivities.capture, call)
            compensations.append(NaiveActivities.compensate_credit)
            await self._do(NaiveActivities.credit, call)
            compensations.append(NaiveActivities.compensate_settle)
            await self._do(NaiveActivities.settle, call)
            await self._do(NaiveActivities.release, call)
        except ActivityError as err:
            for compensation in reversed(compensations):
                await workflow.execute_activity_method(
                    compensation,
                    call,
                    start_to_close_timeout=STEP_TIMEOUT,
                    retry_policy=COMPENSATION_RETRY.to_retry_policy(),
                )
            raise ApplicationError("transfer compensated", non_retryable=True) from err
        return "completed"

    @staticmethod
    async def _do(activity: _Activity, call: NaiveCall) -> None:
        await workflow.execute_activity_method(
            activity,
            call,
            start_to_close_timeout=STEP_TIMEOUT,
            retry_policy=ACTION_RETRY.to_retry_policy(),
        )
