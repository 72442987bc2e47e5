"""Where a hung test waits: shortly before pytest-timeout fails a test, the await chain of every
task on the running event loops is written down and shown with the failure; and a Temporal
worker that does not stop within WORKER_STOP_SECONDS fails its test at once with the activities
it still runs and every thread's stack, instead of hanging the file until pytest-timeout.

pytest-timeout prints the threads' stacks, and a test hung on a coroutine shows as the event
loop idling in its selector there; the await chains name the call that never returned."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import traceback
from collections.abc import Generator, Iterator
from types import CoroutineType, FrameType, GeneratorType
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.worker import RunningActivities

SECTION = "await chains before the timeout"
HEADROOM_SECONDS = 15.0
WORKER_STOP_SECONDS = 20.0
"""A test's worker stops within its graceful shutdown (build_worker: 5 s) and the cancelled
activities' return; longer means a step is stuck, and the test says where."""
_chains = pytest.StashKey[list[str]]()


class WorkerDidNotStopError(AssertionError):
    """A worker's shutdown outlasted WORKER_STOP_SECONDS."""


@pytest.fixture(autouse=True, scope="session")
def workers_stop_within_a_bound() -> Iterator[None]:
    """Every Temporal worker a test or fixture runs (`async with worker`) stops within
    WORKER_STOP_SECONDS, or fails the test with what it still runs; every Temporal server a
    fixture starts (`async with env`) too, or fails with the threads' stacks."""
    unbounded_worker = Worker.__aexit__
    unbounded_env = WorkflowEnvironment.__aexit__

    async def bounded_worker(
        self: Worker, exc_type: type[BaseException] | None, *args: Any
    ) -> None:
        try:
            await asyncio.wait_for(unbounded_worker(self, exc_type, *args), WORKER_STOP_SECONDS)
        except TimeoutError:
            raise WorkerDidNotStopError(_not_stopped(self)) from None

    async def bounded_env(self: WorkflowEnvironment, *args: Any) -> None:
        try:
            await asyncio.wait_for(unbounded_env(self, *args), WORKER_STOP_SECONDS)
        except TimeoutError:
            where = self.client.service_client.config.target_host
            raise WorkerDidNotStopError(
                f"Temporal server at {where} did not stop within {WORKER_STOP_SECONDS:.0f} s\n"
                f"threads:\n{_thread_stacks()}"
            ) from None

    Worker.__aexit__ = bounded_worker  # type: ignore[method-assign]
    WorkflowEnvironment.__aexit__ = bounded_env  # type: ignore[method-assign]
    try:
        yield
    finally:
        Worker.__aexit__ = unbounded_worker  # type: ignore[method-assign]
        WorkflowEnvironment.__aexit__ = unbounded_env  # type: ignore[method-assign]


def _not_stopped(worker: Worker) -> str:
    interceptors = worker.config().get("interceptors", [])
    running = [
        line
        for interceptor in interceptors
        if isinstance(interceptor, RunningActivities)
        for line in interceptor.describe()
    ]
    return "\n".join(
        [
            f"worker on task queue {worker.task_queue!r} did not stop within "
            f"{WORKER_STOP_SECONDS:.0f} s",
            "activities still running:",
            *(f"  {line}" for line in running or ["(none it knows of)"]),
            "threads:",
            _thread_stacks(),
            "await chains:",
            _chains_now(),
        ]
    )


def _thread_stacks() -> str:
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    return "\n".join(
        f"thread {names.get(ident, ident)}:\n{''.join(traceback.format_stack(frame))}"
        for ident, frame in sys._current_frames().items()
    )


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
