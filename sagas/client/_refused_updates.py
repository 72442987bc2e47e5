"""An operator's update to a workflow, its refusal raised as the fundsaga error it names."""

from __future__ import annotations

from typing import Any

from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from sagas.foundations import FundsagaError


def refusals(*errors: type[FundsagaError]) -> dict[str, type[FundsagaError]]:
    """The refusals an update may answer with, by the type name they cross Temporal under."""
    return {error.__name__: error for error in errors}


async def refusable_update(
    handle: WorkflowHandle[Any, Any],
    update: str,
    argument: Any,
    result: type,
    known: dict[str, type[FundsagaError]],
) -> Any:
    """Execute `update`; a failure of one of `known` (see `refusals`) is raised as that error."""
    try:
        return await handle.execute_update(update, argument, result_type=result)
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and (cause.type or "") in known:
            raise known[cause.type or ""](cause.message) from err
        raise
