"""The DBOS peer, run as a worker process beside the session's Temporal worker, so that its
blocks interleave with the Temporal scenarios' on the same database and the same machine."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from tooling.bench._load import Done, RunOne
from tooling.bench._setup import pg_server_url, requests, scratch_pg_database

NOT_INSTALLED = "not installed (pip install 'fundsaga[bench]')"
READY_TIMEOUT_S = 120


def dbos_installed() -> bool:
    return importlib.util.find_spec("dbos") is not None


@contextmanager
def system_database(database: str, directory: Path) -> Iterator[str]:
    """DBOS's own database, on the session's database server: a fresh SQLite file, or a
    PostgreSQL database made for the run and dropped afterwards."""
    if database == "sqlite":
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "dbos-system.sqlite"
        path.unlink(missing_ok=True)
        yield f"sqlite:///{path}"
        return
    with scratch_pg_database("fundsaga_bench_dbos") as name:
        yield pg_server_url().set(database=name).render_as_string(hide_password=False)


class DbosWorker:
    """The driver's side of the DBOS process: one saga per line out, its outcome per line in."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.pid = process.pid
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._waiting: dict[str, asyncio.Future[bool]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while line := await self._stdout.readline():
            reply = json.loads(line)
            waiting = self._waiting.pop(reply["id"], None)
            if waiting is not None and not waiting.done():
                waiting.set_result(bool(reply["ok"]))
        for waiting in self._waiting.values():
            waiting.set_exception(RuntimeError("the DBOS process exited"))

    def runner(self) -> RunOne:
        source = requests("dbos")

        async def run_one() -> Done:
            request = next(source)
            saga_id = f"dbos-{request.idempotency_key}"
            outcome = asyncio.get_running_loop().create_future()
            self._waiting[saga_id] = outcome
            order = {"id": saga_id, "request": request.model_dump(mode="json")}
            self._stdin.write(json.dumps(order).encode() + b"\n")
            await self._stdin.drain()
            return Done(workflow_id=saga_id, ok=await outcome)

        return run_one

    async def close(self) -> None:
        self._stdin.close()
        await self._stdin.wait_closed()
        await self._reader


@asynccontextmanager
async def dbos_worker(
    database: str, ledger_url: str, directory: Path, log_file: Path
) -> AsyncIterator[DbosWorker]:
    """The DBOS process on the session's ledger, with its system database beside it."""
    with system_database(database, directory) as system_url, log_file.open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tooling.bench._dbos_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
        )
        assert process.stdin is not None
        assert process.stdout is not None
        spec = {"ledger_url": ledger_url, "system_database_url": system_url}
        process.stdin.write(json.dumps(spec).encode() + b"\n")
        worker: DbosWorker | None = None
        try:
            line = await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT_S)
            if line.strip() != b"ready":
                raise RuntimeError(f"the DBOS process did not start: see {log_file}")
            worker = DbosWorker(process)
            yield worker
        finally:
            if worker is not None:
                await worker.close()
            else:
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()
