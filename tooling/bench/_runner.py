"""One benchmark run: stand up the server and worker, run every phase, assemble the report."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from temporalio.testing import WorkflowEnvironment

from tooling.bench._codec import bench_converter, run_keys
from tooling.bench._conditions import conditions
from tooling.bench._config import BenchConfig
from tooling.bench._dbos import dbos_result
from tooling.bench._host import server_pid, start_server, worker_process
from tooling.bench._load import Probe
from tooling.bench._results import Report, ScenarioResult, Soak
from tooling.bench._scenarios import Queues, Scenario, runner
from tooling.bench._session import Measured, Session
from tooling.bench._setup import prepare_ledger
from tooling.bench._soak import soak
from tooling.bench._summary import ratios, summarise, targets
from tooling.bench._worker_proc import WorkerSpec

TEMPORAL_SCENARIOS = (
    Scenario.BARE,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.COMPENSATE,
    Scenario.NAIVE,
)


@dataclass(frozen=True, kw_only=True)
class Stage:
    """What a run stands up: the dev server (its client drives the load) and the worker process."""

    env: WorkflowEnvironment
    queues: Queues
    worker_pid: int


@asynccontextmanager
async def staged(config: BenchConfig) -> AsyncIterator[Stage]:
    """The dev server and the worker process, every Temporal client on the run's converter."""
    out = config.output_dir
    database_url = prepare_ledger(out)
    shutil.rmtree(out / "audit", ignore_errors=True)
    payload_keys = run_keys(config.knobs)
    env = await start_server(
        eager_activities=config.knobs.eager_activities,
        data_converter=bench_converter(payload_keys),
    )
    async with env:
        queues = Queues()
        spec = WorkerSpec(
            address=env.client.service_client.config.target_host,
            namespace=env.client.namespace,
            database_url=database_url,
            audit_store=f"dir:{out / 'audit'}",
            engine_queue=queues.engine,
            compensate_queue=queues.compensate,
            bench_queue=queues.bench,
            knobs=config.knobs,
            payload_keys=payload_keys,
        )
        async with worker_process(spec, out / "worker.log") as worker_pid:
            yield Stage(env=env, queues=queues, worker_pid=worker_pid)


async def run_bench(config: BenchConfig) -> Report:
    """Run every scenario against an embedded dev server this run starts and stops."""
    async with staged(config) as stage:
        client = stage.env.client
        probe = Probe(stage.worker_pid, server_pid())
        runners = {s: runner(s, client, stage.queues) for s in TEMPORAL_SCENARIOS}
        measured = await Session(config, probe, client, runners).run()
        soaked = await soak(probe, runners[Scenario.ENGINE], config.soak) if config.soak else None
    dbos = await dbos_result(config)
    return _report(config, measured, dbos, soaked, peak_resettable=probe.peak_resettable)


def _report(
    config: BenchConfig,
    measured: dict[Scenario, Measured],
    dbos: ScenarioResult,
    soaked: Soak | None,
    *,
    peak_resettable: bool,
) -> Report:
    results = {s.value: summarise(s, m) for s, m in measured.items()}
    found = ratios(measured, results)
    return Report(
        label=config.label,
        conditions=conditions(config, peak_resettable=peak_resettable),
        scenarios=[*results.values(), dbos],
        ratios=found,
        targets=targets(found, config.concurrencies, soaked),
        soak=soaked,
    )
