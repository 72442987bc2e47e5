"""One WARNING line for each failed attempt of a step activity, with the saga's fields as
`extra`, so a JSON log line names the saga type, step, phase and error class."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError, TemporalError

from sagas.engine._definition import StepCall


@contextmanager
def logged_attempt(call: StepCall[Any, Any]) -> Iterator[None]:
    try:
        yield
    except ApplicationError as err:
        _failed(call, err.type or type(err).__name__, err.message, retryable=not err.non_retryable)
        raise
    except TemporalError:
        raise  # a cancel: the step did not fail
    except Exception as err:  # raw: Temporal's retry policy decides
        _failed(call, type(err).__name__, str(err), retryable=True)
        raise


def _failed(call: StepCall[Any, Any], error_class: str, why: str, *, retryable: bool) -> None:
    activity.logger.warning(
        "step %s (%s) of %s failed (%s): %s: %s",
        call.step_name,
        call.phase.value,
        call.saga_type,
        "retryable" if retryable else "not retryable",
        error_class,
        why,
        extra={
            "saga_type": call.saga_type,
            "step": call.step_name,
            "phase": call.phase.value,
            "error_class": error_class,
        },
    )
