"""A process's stop as a deploy sees it: SIGTERM, the process's own exit code and its log.

Each case runs a small Python program that serves with ProcessStop in a process of its own,
because the stop ends its process (os._exit) when time runs out or a second signal arrives."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAM = """
import asyncio, logging, sys, time
from datetime import timedelta
from sagas.foundations import ProcessStop

logging.basicConfig(level=logging.INFO, stream=sys.stderr)

async def main(after_stop: float, in_start_up: bool, window: float) -> None:
    stop = ProcessStop(
        "test process", timedelta(seconds=window), left=lambda: ["step debit of saga t-1"],
        margin=timedelta(seconds=0.5),
    )
    async with stop.installed():
        print("serving", flush=True)
        if in_start_up:
            await asyncio.sleep(60)  # a start-up waiting for Temporal
        await stop.wait()
        await asyncio.to_thread(time.sleep, after_stop)  # the work in hand, still running
    print("closed", flush=True)

asyncio.run(main(float(sys.argv[1]), sys.argv[2] == "start-up", float(sys.argv[3])))
"""


def start(after_stop: float, phase: str = "serving", window: float = 0.5) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PROGRAM), str(after_stop), phase, str(window)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "serving"
    return process


def stopped(process: subprocess.Popen[str], *signals: signal.Signals) -> tuple[int, str, str]:
    for signum in signals:
        process.send_signal(signum)
        time.sleep(0.3)
    try:
        out, err = process.communicate(timeout=20)
    finally:
        process.kill()
    return process.returncode, out, err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_work_that_ends_in_the_window_exits_cleanly(signum: signal.Signals) -> None:
    # A window far longer than the work: a loaded machine's slow close still ends within it.
    code, out, err = stopped(start(after_stop=0.1, window=9.5), signum)
    assert code == 0, err
    assert out.split() == ["stopping", "...", "closed"]
    assert f"stopping on {signum.name}: up to 10 s for the 1 piece(s) of work in hand" in err
    assert "stopped within its 10 s" in err


def test_work_still_running_at_the_deadline_is_named_and_left() -> None:
    code, out, err = stopped(start(after_stop=30), signal.SIGTERM)
    assert code == 1
    assert "closed" not in out
    assert "its 1 s to stop passed, leaving 1 piece(s) of work: step debit of saga t-1" in err


def test_a_second_signal_exits_at_once() -> None:
    process = start(after_stop=120, window=60)
    code, _, err = stopped(process, signal.SIGTERM, signal.SIGTERM)
    assert code == 128 + signal.SIGTERM  # not 1: it did not wait for its 60 s deadline
    assert "a second signal (SIGTERM), leaving 1 piece(s) of work" in err


def test_a_signal_during_start_up_stops_the_start_up() -> None:
    code, out, err = stopped(start(after_stop=0, phase="start-up", window=9.5), signal.SIGTERM)
    assert code == 0, err
    assert "closed" in out
