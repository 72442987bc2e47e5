"""The processes a run stands up: the embedded Temporal dev server and the worker process."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.converter import DataConverter
from temporalio.testing import WorkflowEnvironment

from sagas.servers import start_dev_server
from tooling.bench._procstat import child_pids, process_name, start_ticks
from tooling.bench._worker_proc import WorkerSpec

EAGER_ACTIVITIES = "system.enableActivityEagerExecution=true"
READY_TIMEOUT_S = 120


async def start_server(
    *, eager_activities: bool, data_converter: DataConverter
) -> WorkflowEnvironment:
    """fundsaga's in-memory dev server on a free port, UI off; its client (the load
    generator's) on `data_converter`."""
    extra = ["--dynamic-config-value", EAGER_ACTIVITIES] if eager_activities else []
    return await start_dev_server(
        port=None, ui_port=None, data_converter=data_converter, extra_args=extra
    )


def server_pid() -> int | None:
    """The pid of the dev server this process started last (a child named `temporal`): a test
    process may still hold the servers of earlier tests, idle."""
    servers: list[tuple[int, int]] = []
    for pid in child_pids(os.getpid()):
        try:
            if process_name(pid) == "temporal":
                servers.append((start_ticks(pid), pid))
        except OSError:
            continue
    return max(servers)[1] if servers else None


@asynccontextmanager
async def worker_process(spec: WorkerSpec, log_file: Path) -> AsyncIterator[int]:
    """Run the benchmark worker in a child process; yields its pid once every worker polls.
    The spec goes on its standard input, not its command line: it may hold the run's key."""
    with log_file.open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tooling.bench._worker_main",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
        )
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(spec.to_json().encode() + b"\n")
        try:
            line = await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT_S)
            if line.strip() != b"ready":
                raise RuntimeError(f"the bench worker did not start: see {log_file}")
            yield process.pid
        finally:
            process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
