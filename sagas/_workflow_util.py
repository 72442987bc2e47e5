"""Small helpers for workflow code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from temporalio import workflow

T = TypeVar("T")


async def uncancellable(work: Awaitable[T]) -> T:
    """Await `work` to its end: cancelling the saga must not interrupt it."""
    task: asyncio.Future[T] = asyncio.ensure_future(work)
    while True:
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                return task.result()
            workflow.logger.warning("cancel ignored until %s finishes", _name(task))


def _name(task: Any) -> str:
    get_name = getattr(task, "get_name", None)
    return str(get_name()) if callable(get_name) else "the running step"
