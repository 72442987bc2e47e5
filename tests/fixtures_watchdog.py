"""Where a hung test waits: shortly before pytest-timeout fails a test, the await chain of every
task on the running event loops is written down and shown with the failure.

pytest-timeout prints the threads' stacks, and a test hung on a coroutine shows as the event
loop idling in its selector there; the await chains name the call that never returned."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Generator
from types import CoroutineType, FrameType, GeneratorType
from typing import Any

import pytest

SECTION = "await chains before the timeout"
HEADROOM_SECONDS = 15.0
_chains = pytest.StashKey[list[str]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    timeout = _timeout_seconds(item)
    written: list[str] = []
    item.stash[_chains] = written
    timer = None
    if timeout > HEADROOM_SECONDS:
        timer = threading.Timer(timeout - HEADROOM_SECONDS, lambda: written.append(_chains_now()))
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    written = item.stash.get(_chains, [])
    if report.failed and written:
        report.sections.append((SECTION, "\n".join(written)))


def _timeout_seconds(item: pytest.Item) -> float:
    marker = item.get_closest_marker("timeout")
    if marker is not None and marker.args:
        return float(marker.args[0])
    configured = item.config.getini("timeout")
    return float(configured) if configured else 0.0


def _chains_now() -> str:
    """`await_chains`, or why they could not be read: nothing raises in the timer's thread."""
    try:
        return await_chains()
    except Exception as err:  # a loop's tasks changing under the walk; the timeout still fails
        return f"await chains not read: {type(err).__name__}: {err}"


def await_chains() -> str:
    """Each pending task of each running loop, and the frames it awaits in, innermost last."""
    lines = []
    loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]
    for loop in loops:
        if not loop.is_running():
            continue
        for task in list(asyncio.all_tasks(loop)):
            lines.append(f"task {task.get_name()}:")
            lines.extend(f"  {_where(frame)}" for frame in _awaited_frames(task.get_coro()))
    return "\n".join(lines) or "no task pending on a running loop"


def _awaited_frames(awaitable: object) -> list[FrameType]:
    frames = []
    while awaitable is not None:
        if isinstance(awaitable, CoroutineType):
            frame, awaitable = awaitable.cr_frame, awaitable.cr_await
        elif isinstance(awaitable, GeneratorType):
            frame, awaitable = awaitable.gi_frame, awaitable.gi_yieldfrom
        else:
            break
        if frame is not None:
            frames.append(frame)
    return frames


def _where(frame: FrameType) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
