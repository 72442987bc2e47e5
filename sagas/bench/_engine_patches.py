"""Engine changes measured before they are made: patched into the bench worker process only.

Each patch stands for a change proposed to the engine (see docs/performance.md); none is applied
outside a benchmark worker, and `skip-snapshot-write` breaks a guarantee: it only bounds a cost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any
from unittest import mock

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from sagas import _runtime
from sagas.ledger import Ledger


def _skip_unchanged_upserts() -> None:
    """Upsert only search attributes whose value changes (the client sets both at start)."""
    original = workflow.upsert_search_attributes

    def upsert(updates: Sequence[SearchAttributeUpdate[Any]]) -> None:
        current = workflow.info().typed_search_attributes
        changed = [u for u in updates if current.get(u.key) != u.value]
        if changed:
            original(changed)

    workflow.upsert_search_attributes = upsert  # type: ignore[assignment]


def _uncancelled_deadline_timer() -> None:
    """The deadline timer is left to lapse when the saga ends, instead of being cancelled."""
    original = workflow.wait

    async def wait(fs: Any, *, timeout: float | None = None, **kwargs: Any) -> Any:
        tasks = list(fs)
        if timeout is None or len(tasks) != 1:
            return await original(tasks, timeout=timeout, **kwargs)
        deadline = asyncio.ensure_future(asyncio.sleep(timeout))
        done, _ = await original([*tasks, deadline], return_when=asyncio.FIRST_COMPLETED)
        return {t for t in tasks if t in done}, {t for t in tasks if t not in done}

    workflow.wait = wait


def _skip_snapshot_write() -> None:
    """Upper bound of the snapshot's cost: the activity does not write it (NOT a valid engine)."""

    def record_snapshot(self: Ledger, snapshot: Any) -> None:
        return None

    Ledger.record_snapshot = record_snapshot  # type: ignore[method-assign]


async def _execute_local(activity: Any, arg: Any, **options: Any) -> Any:
    try:
        return await workflow.execute_local_activity(activity, arg, **options)
    except ApplicationError as err:
        # a failed local activity raises its ApplicationError bare: the loop expects ActivityError
        retry_state = RetryState.NON_RETRYABLE_FAILURE if err.non_retryable else RetryState.TIMEOUT
        raise ActivityError(
            str(err),
            scheduled_event_id=0,
            started_event_id=0,
            identity="",
            activity_type=str(activity),
            activity_id="",
            retry_state=retry_state,
        ) from err


class _LocalStepsWorkflow:
    """The `workflow` module as the engine loop sees it, with steps run as local activities."""

    execute_activity = staticmethod(_execute_local)

    def __getattr__(self, name: str) -> Any:
        return getattr(workflow, name)


def _local_activity_steps() -> None:
    """Every step (action and compensation) as a local activity: no activity task round trip."""
    mock.patch.object(_runtime, "workflow", _LocalStepsWorkflow()).start()


PATCHES: dict[str, Callable[[], None]] = {
    "skip-unchanged-upserts": _skip_unchanged_upserts,
    "uncancelled-deadline-timer": _uncancelled_deadline_timer,
    "skip-snapshot-write": _skip_snapshot_write,
    "local-activity-steps": _local_activity_steps,
}


def apply_patches(names: Sequence[str]) -> None:
    for name in names:
        PATCHES[name]()
