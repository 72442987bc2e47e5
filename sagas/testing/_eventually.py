"""Waiting for something a test cannot wait on directly: a query, a row, a metric."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar, overload

T = TypeVar("T")


@overload
async def assert_eventually(
    check: Callable[[], Awaitable[T]], *, timeout: timedelta = ..., interval: timedelta = ...
) -> T: ...


@overload
async def assert_eventually(
    check: Callable[[], T], *, timeout: timedelta = ..., interval: timedelta = ...
) -> T: ...


async def assert_eventually(
    check: Callable[[], Any],
    *,
    timeout: timedelta = timedelta(seconds=10),
    interval: timedelta = timedelta(milliseconds=100),
) -> Any:
    """Call `check` until it returns without an AssertionError, and return what it returned.

    `check` asserts (plain `assert` statements) and may be a coroutine function. When `timeout`
    passes first, its last AssertionError is raised, saying how long it was tried.
    """
    deadline = time.monotonic() + timeout.total_seconds()
    while True:
        try:
            result = check()
            if inspect.isawaitable(result):
                return await result
            return result
        except AssertionError as failed:
            if time.monotonic() >= deadline:
                failed.add_note(f"still failing after {timeout.total_seconds():g} s")
                raise
        await asyncio.sleep(interval.total_seconds())
