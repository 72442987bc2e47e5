"""One step activity, run as a regular or a local activity, its failure read the same for both."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from sagas.engine._definition import StepDefinition
from sagas.engine._retry import RetrySpec
from sagas.foundations import is_business_error_type

LOCAL_RETRY_THRESHOLD = timedelta(milliseconds=1)
"""Every backoff between a local step's attempts is a durable timer in the history, never a
sleep inside the worker: it survives a worker restart and shows in the Temporal UI. (Zero
would mean the SDK's default, one minute of sleeping in the worker.)"""


class StepActivityError(Exception):
    """A step activity that failed for good, with what the saga's outcome reports of it."""

    def __init__(
        self, error_type: str, message: str, *, attempts: int, business: bool, deadline: bool
    ) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.attempts = attempts
        self.business = business
        self.deadline = deadline
        """The saga's deadline (the activity's schedule-to-close timeout) ended the retries."""


async def run_step_activity(
    step: StepDefinition[Any],
    activity: str,
    call: Any,
    *,
    retry: RetrySpec,
    summary: str,
    result_type: type | None = None,
    deadline_in: timedelta | None = None,
    wait_for_cancel: bool = False,
) -> Any:
    """Run `activity` with the step's timeout; raises StepActivityError when it fails for good.

    `deadline_in` bounds the attempts and the backoffs between them (schedule-to-close).
    Temporal does not enforce that bound across a local activity's retries: a saga with local
    steps races its deadline against a timer instead.
    """
    cancellation = (
        workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
        if wait_for_cancel
        else workflow.ActivityCancellationType.TRY_CANCEL
    )
    try:
        if step.local:
            return await workflow.execute_local_activity(
                activity,
                call,
                result_type=result_type,
                start_to_close_timeout=step.timeout,
                schedule_to_close_timeout=deadline_in,
                retry_policy=retry.to_retry_policy(),
                local_retry_threshold=LOCAL_RETRY_THRESHOLD,
                cancellation_type=cancellation,
                summary=summary,
            )
        return await workflow.execute_activity(
            activity,
            call,
            result_type=result_type,
            start_to_close_timeout=step.timeout,
            schedule_to_close_timeout=deadline_in,
            retry_policy=retry.to_retry_policy(),
            cancellation_type=cancellation,
            summary=summary,
        )
    except ActivityError as err:
        raise _from_activity_error(err, retry.maximum_attempts) from err
    except ApplicationError as err:
        # A local activity's own failure arrives unwrapped, not as the cause of an ActivityError.
        raise _from_application_error(err, retry.maximum_attempts) from err


def _from_activity_error(err: ActivityError, max_attempts: int) -> StepActivityError:
    cause = err.cause
    non_retryable = err.retry_state is RetryState.NON_RETRYABLE_FAILURE
    deadline = err.retry_state is RetryState.TIMEOUT
    if isinstance(cause, ApplicationError):
        return _from_application_error(
            cause, max_attempts, non_retryable=non_retryable, deadline=deadline
        )
    return StepActivityError(
        type(cause).__name__ if cause is not None else type(err).__name__,
        str(cause if cause is not None else err),
        attempts=max_attempts,
        business=non_retryable,
        deadline=deadline,
    )


def _from_application_error(
    err: ApplicationError,
    max_attempts: int,
    *,
    non_retryable: bool = False,
    deadline: bool = False,
) -> StepActivityError:
    error_type = err.type or type(err).__name__
    details = err.details[0] if err.details else None
    attempts = max_attempts
    if isinstance(details, dict) and isinstance(details.get("attempt"), int):
        attempts = details["attempt"]
    return StepActivityError(
        error_type,
        str(err),
        attempts=attempts,
        business=is_business_error_type(error_type) or non_retryable or err.non_retryable,
        deadline=deadline,
    )
