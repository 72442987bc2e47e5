"""A worker started while Temporal is down waits for it, saying so at each attempt, and serves
once it answers; a stop signal ends the wait at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
from collections.abc import AsyncIterator
from itertools import islice
from pathlib import Path

import pytest

from sagas import SagaStatus
from sagas.client import FundsagaClient, connect_temporal
from sagas.client._connect import retry_waits
from sagas.foundations import Settings
from sagas.servers import free_port
from sagas.testing import dev_server_environment
from tests.observability.worker_process import FUNDSAGA, WorkerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180), pytest.mark.long]


def test_the_waits_double_from_one_second_up_to_thirty() -> None:
    waits = [w.total_seconds() for w in islice(retry_waits(), 8)]

    assert waits == [1, 2, 4, 8, 16, 30, 30, 30]


class Worker:
    """A `fundsaga worker` process; its stderr lines, read as they come."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            self.lines.append(line.decode().rstrip())

    async def until_logged(self, pattern: str, count: int = 1) -> list[str]:
        """The first `count` lines matching `pattern`, waiting for them (the worker running)."""
        while len(found := [s for s in self.lines if re.search(pattern, s)]) < count:
            assert self.process.returncode is None, "\n".join(self.lines)
            await asyncio.sleep(0.05)
        return found[:count]

    async def stop(self) -> int:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.process.wait(), timeout=60)
        await self._reading
        return code


@pytest.fixture
async def waiting_worker(tmp_path: Path) -> AsyncIterator[tuple[Worker, WorkerProcess, int]]:
    """A worker started against a port where no Temporal answers, and that port."""
    port = free_port()
    prepared = WorkerProcess.prepare(tmp_path, f"127.0.0.1:{port}")
    process = await asyncio.create_subprocess_exec(
        FUNDSAGA,
        "worker",
        env=prepared.env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        yield Worker(process), prepared, port
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


async def test_a_worker_started_before_temporal_waits_and_then_serves(
    waiting_worker: tuple[Worker, WorkerProcess, int],
) -> None:
    worker, prepared, port = waiting_worker
    retrying = rf"Temporal at 127\.0\.0\.1:{port} .*; retrying in (\d+) s$"

    attempts = await asyncio.wait_for(worker.until_logged(retrying, count=3), timeout=60)

    assert [re.findall(retrying, a) for a in attempts] == [["1"], ["2"], ["4"]]
    assert all("WARNING" in a for a in attempts)
    async with dev_server_environment(port) as env:
        assert worker.process.stdout is not None
        ready = await asyncio.wait_for(worker.process.stdout.readline(), timeout=60)
        assert b"worker running saga types" in ready, "\n".join(worker.lines)
        client = FundsagaClient(env.client, prepared.env["FUNDSAGA_TASK_QUEUE"])
        request = {"source_account": "alice", "destination_account": "carol", "amount": "10.00"}
        await client.start("transfer", {"idempotency_key": "late-1", **request, "currency": "EUR"})
        outcome = await asyncio.wait_for(client.saga("transfer", "late-1").outcome(), timeout=60)

        assert outcome.status is SagaStatus.COMPLETED
        await worker.stop()
    assert not any("Traceback" in line for line in worker.lines), "\n".join(worker.lines)


async def test_a_stop_signal_ends_the_wait_at_once(
    waiting_worker: tuple[Worker, WorkerProcess, int],
) -> None:
    worker, _, _ = waiting_worker
    await asyncio.wait_for(worker.until_logged("retrying in 2 s"), timeout=60)

    await asyncio.wait_for(worker.stop(), timeout=10)

    assert not any("Traceback" in line for line in worker.lines), "\n".join(worker.lines)


def attempts(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "fundsaga.client"]


async def test_the_wait_ends_when_its_task_is_cancelled(caplog: pytest.LogCaptureFixture) -> None:
    """What a stop signal does to the wait inside the process: the task waiting between two
    attempts is cancelled, and no attempt follows."""
    address = f"127.0.0.1:{free_port()}"
    waiting = asyncio.create_task(connect_temporal(Settings(TEMPORAL_ADDRESS=address), wait=True))
    while not attempts(caplog):
        assert not waiting.done()
        await asyncio.sleep(0.05)

    waiting.cancel()

    with pytest.raises(asyncio.CancelledError):
        await waiting
    (attempt,) = attempts(caplog)
    assert (attempt.name, attempt.levelname) == ("fundsaga.client", "WARNING")
    assert attempt.getMessage().startswith(f"Temporal at {address} is not reachable: ")
    assert attempt.getMessage().endswith("; retrying in 1 s")
