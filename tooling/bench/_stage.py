"""What a session stands up: the dev server, a fresh ledger and the worker processes."""

from __future__ import annotations

import shutil
import socket
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from temporalio.testing import WorkflowEnvironment

from tooling.bench._codec import bench_converter, run_keys
from tooling.bench._config import BenchConfig
from tooling.bench._host import start_server, worker_process
from tooling.bench._scenarios import VARIANTS, Queues
from tooling.bench._setup import ledger_database
from tooling.bench._worker_proc import WorkerSpec


@dataclass(frozen=True, kw_only=True)
class Stage:
    """What a run stands up: the dev server (its client drives the load) and the worker
    processes (one, except in the scaling run)."""

    env: WorkflowEnvironment
    queues: Queues
    worker_pids: list[int]
    database_url: str
    """The ledger the workers write, as they reach it."""


def free_address() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@asynccontextmanager
async def staged(
    config: BenchConfig, database: str = "sqlite", processes: int = 1, *, variants: bool = True
) -> AsyncIterator[Stage]:
    """The dev server, a fresh ledger on `database` and the worker processes, every Temporal
    client on the run's converter; the variants' workers too unless `variants` is False."""
    out = config.output_dir / database
    shutil.rmtree(out / "audit", ignore_errors=True)
    payload_keys = run_keys(config.knobs)
    with ledger_database(database, out) as database_url:
        env = await start_server(
            eager_activities=config.knobs.eager_activities,
            data_converter=bench_converter(payload_keys),
        )
        async with env, AsyncExitStack() as stack:
            queues = Queues()
            chosen = VARIANTS if config.variants and variants else ()
            pids = []
            for n in range(processes):
                spec = WorkerSpec(
                    address=env.client.service_client.config.target_host,
                    namespace=env.client.namespace,
                    database_url=database_url,
                    audit_store=f"dir:{out / 'audit' / str(n)}",
                    engine_queue=queues.engine,
                    compensate_queue=queues.compensate,
                    bench_queue=queues.bench,
                    variant_queues={v.value: queues.of_variant(v) for v in chosen},
                    metrics_address=free_address(),
                    knobs=config.knobs,
                    payload_keys=payload_keys,
                )
                log = config.output_dir / "worker.log"
                pids.append(await stack.enter_async_context(worker_process(spec, log)))
            yield Stage(env=env, queues=queues, worker_pids=pids, database_url=database_url)
