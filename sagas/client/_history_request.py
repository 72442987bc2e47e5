"""A saga's request as Temporal keeps it: the input of the first event of its run's history."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode


async def request_in_history(
    temporal: Client, workflow_id: str, run_id: str | None = None
) -> dict[str, Any] | None:
    """The run's request (decoded by the client's converter, its codec included); None when the
    history is gone or its input is not one JSON object."""
    handle = temporal.get_workflow_handle(workflow_id, run_id=run_id)
    try:
        async for event in handle.fetch_history_events(page_size=1):
            payloads = event.workflow_execution_started_event_attributes.input.payloads
            if not payloads:
                return None
            [request] = await temporal.data_converter.decode(payloads[:1], [dict])
            return request if isinstance(request, dict) else None
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            return None
        raise
    return None
