"""The process-scaling run: ENGINE through 1, 2, 4 ... worker processes on PostgreSQL."""

from __future__ import annotations

from tooling.bench._config import BenchConfig
from tooling.bench._host import server_pid
from tooling.bench._load import Probe, closed_loop
from tooling.bench._procstat import sample
from tooling.bench._results import ScalingPoint
from tooling.bench._scenarios import Scenario, runner
from tooling.bench._session import WARMUP_CONCURRENCY, progress
from tooling.bench._stage import staged

DATABASE = "postgresql"


async def scaling(config: BenchConfig) -> list[ScalingPoint]:
    """One fresh server and database per process count; CPU of every worker and the server."""
    points: list[ScalingPoint] = []
    concurrency = config.concurrencies[-1]
    for processes in config.scaling:
        async with staged(config, DATABASE, processes, variants=False) as stage:
            pids, server = stage.worker_pids, server_pid()
            run_one = runner(Scenario.ENGINE, stage.env.client, stage.queues)
            probe = Probe(pids[0], server)
            await closed_loop(probe, run_one, config.warmup * processes, WARMUP_CONCURRENCY)
            before = [sample(pid).cpu_s for pid in pids]
            block = await closed_loop(probe, run_one, config.scaling_sagas, concurrency)
            after = [sample(pid).cpu_s for pid in pids]
        sagas = max(len(block.latencies), 1)
        point = ScalingPoint(
            processes=processes,
            tput=round(block.tput, 2),
            sagas=len(block.latencies),
            failures=block.failures,
            worker_cpu_ms_per_saga=[
                round(1000 * (a - b) / sagas, 2) for a, b in zip(after, before, strict=True)
            ],
            server_cpu_ms_per_saga=round(1000 * block.server_cpu_s / sagas, 2),
        )
        points.append(point)
        progress(f"scaling {processes} processes: {point.tput}/s")
    return points
