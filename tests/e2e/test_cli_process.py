"""`fundsaga` as separate processes: short-lived Temporal clients never abort at exit, and a
reader that stops early ends the output quietly."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

pytestmark = pytest.mark.slow

FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
# `make test` runs a short sample; FUNDSAGA_CLI_RUNS=50 repeats the case as first reported.
RUNS = int(os.environ.get("FUNDSAGA_CLI_RUNS", "16"))
PARALLEL = 4


@pytest.fixture
def cli_environment(dev_env: WorkflowEnvironment, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "TEMPORAL_ADDRESS": dev_env.client.service_client.config.target_host,
        "FUNDSAGA_TASK_QUEUE": f"tq-{uuid.uuid4()}",
    }


async def test_short_lived_clients_never_end_by_a_signal(
    cli_environment: dict[str, str], tmp_path: Path
) -> None:
    """Each run connects to Temporal, asks for a saga that does not exist and exits: the case
    that aborted 3 times in 31 at interpreter exit (temporalio/sdk-python#300)."""
    slots = asyncio.Semaphore(PARALLEL)

    async def status_of_an_unknown_key() -> tuple[int, bytes]:
        async with slots:
            process = await asyncio.create_subprocess_exec(
                FUNDSAGA,
                "transfer",
                "view",
                f"unknown-{uuid.uuid4().hex[:8]}",
                env=cli_environment,
                cwd=tmp_path,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            _, stderr = await process.communicate()
            assert process.returncode is not None
            return process.returncode, stderr

    results = await asyncio.gather(*(status_of_an_unknown_key() for _ in range(RUNS)))

    codes = sorted({code for code, _ in results})
    assert max(codes) < 128, [err.decode() for code, err in results if code >= 128]
    assert codes == [1]
    assert all(err.startswith(b"error: SagaNotFoundError: no saga transfer-") for _, err in results)
    assert all(err.count(b"\n") == 1 for _, err in results)


def test_a_reader_that_stops_early_ends_the_output_quietly(
    cli_environment: dict[str, str], tmp_path: Path
) -> None:
    """`fundsaga transfer list | head` once `head` has gone: the pipe is closed when it writes."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        ended = subprocess.run(
            [FUNDSAGA, "transfer", "list"],
            env=cli_environment,
            cwd=tmp_path,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)

    assert (ended.returncode, ended.stderr) == (0, b"")
