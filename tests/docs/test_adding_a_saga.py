"""docs/adding-a-saga.md works as written: its files, put in an empty directory, make a saga
type that registers beside every built-in type, whose histories record and whose fault matrix
(with its check at the bank) and determinism guard pass, using only fundsaga's public modules;
a `fundsaga worker` started in that directory runs it, and the guide's client script ends
cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaView, parse_money
from sagas.client import SagaHandle
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from tests.e2e.test_faults import worker_environment

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adding-a-saga.md"
FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
FUNDSAGA_PYTHON = sys.executable
FILE_BLOCK = re.compile(r"<!-- file: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```", re.DOTALL)
IMPORTED = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.MULTILINE)
SAGA_TYPE = re.compile(r'saga_type="(?P<name>[\w-]+)"')
SLICE = "not fault_matrix or send"
FULL_MATRIX = os.environ.get("GUIDE_MATRIX") == "full"
"""The guide's tests in `make test`: all but the fault-matrix cases of the debit, a ledger step
as the built-in types' (tests/kit runs those); GUIDE_MATRIX=full runs every case."""


def guide_files() -> dict[str, str]:
    return {m["path"]: m["body"] for m in FILE_BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))}


def write_guide(directory: Path) -> dict[str, str]:
    files = guide_files()
    for relative, body in files.items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return files


def test_the_guide_imports_no_private_module() -> None:
    modules = set(IMPORTED.findall("\n".join(guide_files().values())))
    private = {m for m in modules if any(part.startswith("_") for part in m.split("."))}

    assert {"sagas", "sagas.registry", "sagas.ledger", "sagas.testing"} <= modules
    assert private == {"__future__"}


def test_the_guide_names_every_built_in_type_and_takes_none_of_their_names() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    (example,) = SAGA_TYPE.findall(guide_files()["my_wires/saga.py"])
    built_in = built_in_registry().names()

    assert [name for name in built_in if f"`{name}`" not in text] == []
    assert example not in built_in


@pytest.mark.e2e
async def test_a_saga_written_from_the_guide_records_runs_and_passes_its_tests(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """One directory and one dev server for everything the guide does, at once: the histories
    recorded, then the guide's tests; a `fundsaga worker` started there, then the client
    script and `sagas view`."""
    files = write_guide(tmp_path)
    assert {"my_wires/saga.py", "start_wire.py", "tests/test_wire.py", "pytest.ini"} <= files.keys()
    address = dev_env.client.service_client.config.target_host
    keys = [f"w-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    (recorded, tested), (scripts, viewed) = await asyncio.gather(
        _record_then_test(tmp_path, address), _run_with_a_worker(dev_env, tmp_path, keys)
    )

    assert recorded[0] == 0, recorded[2][-3000:]
    assert len(list((tmp_path / "tests" / "histories").glob("*.json"))) == 5
    code, out, _ = tested
    assert code == 0, out[-3000:]
    # 4 action and 7 compensation cases per step (2 steps, the send's only in the slice); the
    # registration, the coverage, the bank check's negative control; 5 histories.
    assert re.search(rf"\b{30 if FULL_MATRIX else 19} passed\b", out), out[-500:]
    # Each script exits 0 with nothing on stderr: no abort as the interpreter finalizes.
    assert scripts == [(0, f"wire-{key}: COMPLETED\n", "") for key in keys]
    # send failed twice (FUNDSAGA_FAULTS) and succeeded on its third attempt
    assert [(s.step_name, s.attempt) for s in viewed.snapshots] == [("debit", 1), ("send", 3)]


async def _record_then_test(
    directory: Path, address: str
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """The guide's histories recorded on the dev server at `address`, then its tests run."""
    record = [FUNDSAGA_PYTHON, "-m", "sagas.testing", "record", "--address", address]
    recorded = await _run(
        [*record, "tests.wire_scenario:WIRE_SCENARIO", "tests/histories"], directory, _plain()
    )
    pytest = [FUNDSAGA_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    selected = pytest if FULL_MATRIX else [*pytest, "-k", SLICE]
    return recorded, await _run(selected, directory, _plain())


def _plain() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("FUNDSAGA_")}


async def _run_with_a_worker(
    dev_env: WorkflowEnvironment, directory: Path, keys: list[str]
) -> tuple[list[tuple[int, str, str]], SagaView]:
    """The guide's client script, run for each key at once, and the view of the first, with a
    `fundsaga worker` started in `directory` (its package found there) on which each wire's
    send fails twice before it succeeds."""
    env = worker_environment(
        directory / "home",
        dev_env.client.service_client.config.target_host,
        FUNDSAGA_SAGA_MODULES="my_wires",
        FUNDSAGA_FAULTS="wire/send=transient*2",
    )
    del env["PYTHONPATH"]  # the package is found as `python -m` and pytest find it: in the cwd
    ledger = Ledger.from_url(env["FUNDSAGA_DATABASE_URL"])
    ledger.open_account("acc-1", "EUR", opening_balance=parse_money("100.00", "EUR"))
    worker = await asyncio.create_subprocess_exec(
        FUNDSAGA, "worker", env=env, cwd=directory, stdout=asyncio.subprocess.PIPE
    )
    assert worker.stdout is not None
    try:
        started = (await asyncio.wait_for(worker.stdout.readline(), timeout=60)).decode()
        types = re.search(r"saga types (.+?) on ", started)
        assert types is not None, started
        assert "wire" in types[1].split(", "), started
        scripts = await asyncio.gather(
            *(_run([FUNDSAGA_PYTHON, "start_wire.py", key], directory, env) for key in keys)
        )
        # As `fundsaga sagas view` shows it (tests/e2e/test_view_attempts.py runs the command).
        return scripts, await SagaHandle(dev_env.client, "wire", keys[0], ledger=ledger).view()
    finally:
        with contextlib.suppress(ProcessLookupError):
            worker.send_signal(signal.SIGTERM)
        await asyncio.wait_for(worker.wait(), timeout=60)
        ledger.close_connections()


async def _run(args: list[str], directory: Path, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *args,
        cwd=directory,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=600)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()
