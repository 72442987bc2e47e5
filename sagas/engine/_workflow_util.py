"""Small helpers for workflow code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

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
            workflow.logger.warning("cancel ignored until the running step finishes")
