"""How a long-running process stops: on time after its first signal, at once on a second.

A deploy sends SIGTERM and, after its grace period, SIGKILL. A process that waits for its work
without limit (a step blocked on a row lock) is killed without a word about what it left. So the
first SIGTERM, SIGINT or SIGHUP asks the process to stop and arms a deadline (the work's grace
window plus a margin for closing); when the deadline passes, the process logs the work still in
hand and exits non-zero. A second signal exits at once, non-zero, logging the same.

The handlers are Python signal handlers, not the event loop's: they run even while the loop is
blocked, and the deadline is a thread's timer, which fires whatever the loop is doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta
from types import FrameType
from typing import Any, NoReturn

log = logging.getLogger("fundsaga.stop")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STOP_MARGIN = timedelta(seconds=5)
"""Beyond the grace window: closing the Temporal client, database pools and servers."""
LEFT_AT_DEADLINE = 1
"""The exit code of a process that ran out of time and abandoned work."""


def exit_now(code: int) -> NoReturn:
    """Output flushed, then no interpreter teardown (no join of worker threads still blocked)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader went away (`| head`)
            stream.flush()
    os._exit(code)


def _nothing_left() -> Sequence[str]:
    return ()


class ProcessStop:
    """The stop of one process: `install` it first, `await wait()` where the process serves.

    `window` is how long the work in hand may take to finish (a worker's graceful shutdown);
    `left` describes that work, one line each, and is called from any thread.
    A signal that arrives before `wait()` is reached (during start-up) cancels the task that
    installed the handlers, so a start-up waiting for Temporal or the database stops too.
    """

    def __init__(
        self,
        name: str,
        window: timedelta,
        *,
        left: Callable[[], Sequence[str]] = _nothing_left,
        margin: timedelta = STOP_MARGIN,
    ) -> None:
        self._name = name
        self._window = window
        self._margin = margin
        self._left = left
        self._signal: signal.Signals | None = None
        self._requested = asyncio.Event()
        self._serving = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._deadline: threading.Timer | None = None
        self._previous: dict[int, Any] = {}

    @property
    def bound(self) -> timedelta:
        """The longest a stop takes, from the first signal to the process's exit."""
        return self._window + self._margin

    @property
    def requested(self) -> bool:
        return self._signal is not None

    def install(self) -> None:
        """Take SIGTERM, SIGINT and SIGHUP for this process, from the running event loop's task."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._on_signal)

    def uninstall(self) -> None:
        """Give the signals back and disarm the deadline: the process stopped in time."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
        if self._deadline is not None:
            self._deadline.cancel()
            log.info("%s stopped within its %.0f s", self._name, self.bound.total_seconds())

    @contextlib.asynccontextmanager
    async def installed(self) -> AsyncIterator[ProcessStop]:
        """Installed for the block; a start-up that a signal cancelled ends the block quietly."""
        self.install()
        try:
            yield self
        except asyncio.CancelledError:
            if not self.requested:
                raise
        finally:
            self.uninstall()

    async def wait(self) -> None:
        """Serve until the first signal."""
        self._serving = True
        await self._requested.wait()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        received = signal.Signals(signum)
        if self._signal is not None:
            self._abandon(f"a second signal ({received.name})", 128 + signum)
        self._signal = received
        self._deadline = threading.Timer(self.bound.total_seconds(), self._at_deadline)
        self._deadline.daemon = True
        self._deadline.start()
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop_serving)

    def _stop_serving(self) -> None:
        # Here, not in the signal handler: a handler that prints may interrupt a print.
        print("stopping ...", flush=True)
        in_hand = self._left()
        log.log(
            logging.WARNING if in_hand else logging.INFO,
            "%s stopping on %s: up to %.0f s for the %d piece(s) of work in hand%s, then it exits "
            "leaving them; a second signal exits at once",
            self._name,
            self._signal.name if self._signal else "request",
            self.bound.total_seconds(),
            len(in_hand),
            f" ({'; '.join(in_hand)})" if in_hand else "",
        )
        self._requested.set()
        if not self._serving and self._task is not None:
            self._task.cancel(f"{self._name} stopped by {self._signal}")

    def _at_deadline(self) -> None:
        self._abandon(f"its {self.bound.total_seconds():.0f} s to stop passed", LEFT_AT_DEADLINE)

    def _abandon(self, why: str, code: int) -> NoReturn:
        try:
            left = list(self._left())
        except Exception as err:  # the exit must happen whatever describing it raised
            left = [f"(the work in hand could not be read: {type(err).__name__}: {err})"]
        with contextlib.suppress(Exception):  # a handler's write may interrupt another write
            log.error(
                "%s exits now, %s, leaving %d piece(s) of work: %s",
                self._name,
                why,
                len(left),
                "; ".join(left) or "none",
            )
        exit_now(code)
