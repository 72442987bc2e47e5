"""Run the DBOS scenario in a child process when `dbos` is installed; else say so."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys

from tooling.bench._config import BenchConfig
from tooling.bench._results import Latency, ScenarioResult
from tooling.bench._scenarios import Scenario

NOT_INSTALLED = "not installed (pip install 'fundsaga[bench]')"
LATENCY_FIELDS = ("latency_c1", "latency_half", "failure_to_compensated")


def dbos_installed() -> bool:
    return importlib.util.find_spec("dbos") is not None


async def dbos_result(config: BenchConfig) -> ScenarioResult:
    if not config.dbos:
        return ScenarioResult(name=Scenario.DBOS.value, status="skipped (--no-dbos)")
    if not dbos_installed():
        return ScenarioResult(name=Scenario.DBOS.value, status=NOT_INSTALLED)
    spec = {
        "output_dir": str(config.output_dir / "dbos"),
        "concurrencies": list(config.concurrencies),
        "rounds": config.rounds,
        "block": config.block,
        "warmup": config.warmup,
        "latency_samples": config.latency_samples,
    }
    with (config.output_dir / "dbos.log").open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tooling.bench._dbos_proc",
            json.dumps(spec),
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
        )
        stdout, _ = await process.communicate()
    lines = [line for line in stdout.decode().splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        return ScenarioResult(
            name=Scenario.DBOS.value,
            status=f"failed (exit {process.returncode}): see {config.output_dir / 'dbos.log'}",
        )
    return _parse(json.loads(lines[-1]))


def _parse(data: dict[str, object]) -> ScenarioResult:
    values = {
        key: Latency(**value) if key in LATENCY_FIELDS and isinstance(value, dict) else value
        for key, value in data.items()
    }
    return ScenarioResult(**values)  # type: ignore[arg-type]
