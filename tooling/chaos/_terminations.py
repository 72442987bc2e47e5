"""Sagas terminated from outside mid-run, as `temporal workflow terminate` (or Temporal itself,
at its history size limit) ends a workflow without the engine closing the saga."""

from __future__ import annotations

import asyncio
import contextlib
import time

from temporalio.client import WorkflowQueryFailedError
from temporalio.service import RPCError

from sagas.client import SagaHandle
from sagas.engine import SagaStatus

OPEN = {SagaStatus.RUNNING, SagaStatus.COMPENSATING, SagaStatus.NEEDS_ATTENTION}

UNDER_WAY_STEPS = 2
"""Snapshots a saga shows before it is terminated: its first step took effect, the next began."""
WAIT_FOR_PROGRESS_S = 120
POLL_S = 0.05
TERMINATE_REASON = "chaos: terminated from outside mid-run"


async def terminate_under_way(saga: SagaHandle) -> bool:
    """Terminate the saga once it is under way (or when it shows no progress in time); False
    when it closed first, so it was never terminated."""
    deadline = time.monotonic() + WAIT_FOR_PROGRESS_S
    while time.monotonic() < deadline:
        with contextlib.suppress(RPCError, RuntimeError, WorkflowQueryFailedError, TimeoutError):
            view = await asyncio.wait_for(saga.view(), timeout=15)
            if view.status not in OPEN:
                return False
            if len(view.snapshots) >= UNDER_WAY_STEPS:
                break
        await asyncio.sleep(POLL_S)
    try:
        await saga.workflow.terminate(reason=TERMINATE_REASON)
    except RPCError:
        return False  # it closed meanwhile
    print(f"chaos: terminated {saga.saga_id} from outside", flush=True)
    return True
