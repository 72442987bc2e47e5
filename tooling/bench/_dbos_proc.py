"""The DBOS scenario: the transfer's steps as DBOS Transact steps on SQLite, in its own process.

Run as ``python -m tooling.bench._dbos_proc SPEC_JSON``; prints the ScenarioResult as JSON. DBOS
runs in the process that starts workflows, so its CPU and memory include the load generator.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sagas.transfer import ACTION_RETRY, COMPENSATION_RETRY, TRANSFER_SAGA
from tooling.baselines.activities import NaiveActivities, NaiveCall
from tooling.bench._metrics import latency, median
from tooling.bench._results import ScenarioResult
from tooling.bench._setup import bench_ledger, prepare_ledger, requests

STEPS = tuple(step.name for step in TRANSFER_SAGA.steps)
COMPENSATION = {
    step.name: f"compensate_{step.name}"
    for step in TRANSFER_SAGA.steps
    if step.compensation is not None
}


def _register(dbos: Any, activities: NaiveActivities) -> Callable[[str, str], str]:
    def step(name: str, spec: Any) -> Callable[[str], None]:
        method = getattr(activities, name)

        def run(call_json: str) -> None:
            method(NaiveCall.model_validate_json(call_json))

        return dbos.step(  # type: ignore[no-any-return]
            name=f"naive.{name}",
            retries_allowed=True,
            interval_seconds=spec.first_interval.total_seconds(),
            max_attempts=spec.maximum_attempts,
            backoff_rate=float(spec.multiplier),
        )(run)

    actions = {s: step(s, ACTION_RETRY) for s in STEPS}
    compensations = {s: step(name, COMPENSATION_RETRY) for s, name in COMPENSATION.items()}

    def transfer(saga_id: str, request_json: str) -> str:
        call_json = NaiveCall.model_validate(
            {"saga_id": saga_id, "request": json.loads(request_json)}
        ).model_dump_json()
        taken: list[str] = []
        try:
            for name in STEPS:
                taken.append(name)
                actions[name](call_json)
        except Exception:
            for name in reversed(taken):
                if name in compensations:
                    compensations[name](call_json)
            raise
        return "completed"

    return dbos.workflow(name="naive_transfer")(transfer)  # type: ignore[no-any-return]


class _Driver:
    def __init__(self, workflow: Callable[[str, str], str]) -> None:
        self.workflow = workflow
        self.source = requests("dbos")
        self.lock = threading.Lock()

    def one(self) -> tuple[float, bool]:
        with self.lock:
            request = next(self.source)
        started = time.perf_counter()
        ok = self.workflow(f"dbos-{uuid.uuid4().hex}", request.model_dump_json()) == "completed"
        return time.perf_counter() - started, ok

    def closed(self, n: int, concurrency: int) -> tuple[list[float], float, int]:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            done = list(pool.map(lambda _: self.one(), range(n)))
        return [s for s, _ in done], time.perf_counter() - started, sum(not ok for _, ok in done)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(spec: dict[str, Any]) -> ScenarioResult:
    dbos_module = importlib.import_module("dbos")
    directory = Path(spec["output_dir"])
    ledger = bench_ledger(prepare_ledger(directory))
    system_db = directory / "dbos-system.sqlite"
    system_db.unlink(missing_ok=True)
    dbos = dbos_module.DBOS
    dbos(config={"name": "fundsaga-bench", "system_database_url": f"sqlite:///{system_db}"})
    driver = _Driver(_register(dbos, NaiveActivities(ledger)))
    dbos.launch()
    try:
        return _phases(driver, spec)
    finally:
        dbos.destroy()


def _phases(driver: _Driver, spec: dict[str, Any]) -> ScenarioResult:
    result = ScenarioResult(name="DBOS")
    driver.closed(spec["warmup"], 8)
    cpu0, sagas = _cpu(), 0
    for concurrency in spec["concurrencies"]:
        rates = []
        for _ in range(spec["rounds"]):
            seconds, elapsed, failures = driver.closed(spec["block"], concurrency)
            rates.append(len(seconds) / elapsed)
            sagas += len(seconds)
            result.failures += failures
        result.tput[str(concurrency)] = round(median(rates), 2)
        result.tput_blocks[str(concurrency)] = [round(r, 2) for r in rates]
    result.worker_cpu_ms_per_saga = round(1000 * (_cpu() - cpu0) / sagas, 2)
    seconds, _, failures = driver.closed(spec["latency_samples"], 1)
    result.latency_c1 = latency(seconds)
    result.failures += failures
    result.sagas = sagas + len(seconds)
    result.worker_peak_rss_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


if __name__ == "__main__":
    print(json.dumps(asdict(measure(json.loads(sys.argv[1])))))
