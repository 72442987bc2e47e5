"""`python -m tooling.bench` (`make bench`): the benchmark suite against a dev server it starts."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from sagas.foundations import DEFAULT_HOME
from tooling.bench._config import (
    CONTENTION_FULL_SIZE,
    DATABASES,
    SCALING_PROCESSES,
    BenchConfig,
    WorkerKnobs,
)
from tooling.bench._report import table, write_outputs
from tooling.bench._runner import run_bench
from tooling.bench._step_cost import measure_step_cost
from tooling.bench._targets import SOAK_FULL_SIZE


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(","))


def build_parser() -> argparse.ArgumentParser:
    bench = argparse.ArgumentParser(
        prog="python -m tooling.bench",
        description="benchmark: BARE(-LOCAL) vs ENGINE(-LOCAL) vs NAIVE (and DBOS), SQLite and "
        "PostgreSQL ledgers, the targets block; table + JSON + PNG",
    )
    add = bench.add_argument
    add("--output-dir", type=Path, default=DEFAULT_HOME / "bench", help="default .fundsaga/bench")
    add("--smoke", action="store_true", help="tiny sizes: checks that every phase runs")
    add("--label", default="default", help="name of this run in the table and JSON")
    add("--concurrency", type=_sizes, default=(16, 64), help="closed-loop levels, e.g. 16,64")
    add("--rounds", type=int, default=3, help="alternating blocks (repetitions) per phase")
    add(
        "--database",
        choices=("sqlite", "postgresql", "both"),
        default="both",
        help="ledger database(s); PostgreSQL from FUNDSAGA_TEST_PG_URL or the local default",
    )
    add("--no-variants", action="store_true", help="skip the add-on-off ENGINE variants")
    add("--full", action="store_true", help="also the soaks (10,000 each) and process scaling")
    add(
        "--scaling",
        type=_sizes,
        default=(),
        help="worker process counts for the scaling run on PostgreSQL (--full: 1,2,4)",
    )
    add("--scaling-sagas", type=int, default=320, help="ENGINE sagas per process count")
    add("--block", type=int, default=60, help="sagas per throughput block")
    add("--latency-samples", type=int, default=45, help="sagas per scenario at concurrency 1")
    add("--open-loop-samples", type=int, default=60, help="sagas per scenario at half load")
    add("--compensate-samples", type=int, default=20)
    add("--soak", type=int, default=0, metavar="N", help="then N transfers for memory growth")
    add("--no-dbos", action="store_true", help="skip the DBOS scenario")
    add("--contention", type=int, default=200, metavar="N", help="transfer sagas per shape")
    add("--contention-lanes", type=int, default=16, help="lanes starting the contention sagas")
    add("--features", type=int, default=40, metavar="N", help="sagas per feature-cost block")
    add(
        "--only",
        choices=("contention", "features", "scaling"),
        default=None,
        help="only this section, no scenarios, no DBOS: contention (the saga-level shapes), "
        "features (the server's CPU by engine feature) or scaling (ENGINE through 1, 2, 4 "
        "worker processes on PostgreSQL, or --scaling)",
    )
    add(
        "--step-cost",
        type=int,
        default=0,
        metavar="N",
        help="only time N transfers' activities outside Temporal (CPU and commits per transfer), "
        "on each --database",
    )
    knobs = bench.add_argument_group("knobs (applied to every scenario's worker)")
    knobs.add_argument("--activity-slots", type=int, default=32)
    knobs.add_argument("--workflow-task-slots", type=int, default=None)
    knobs.add_argument("--max-cached-workflows", type=int, default=None)
    knobs.add_argument(
        "--sandbox",
        choices=("passthrough", "sdk-default", "off"),
        default="passthrough",
        help="workflow sandbox: fundsaga's (workflows passed through), the SDK's, or none",
    )
    knobs.add_argument("--sqlite-journal", choices=("wal", "delete"), default="wal")
    knobs.add_argument("--eager-activities", action="store_true")
    knobs.add_argument(
        "--codec",
        action="store_true",
        help="encrypt every Temporal payload (fundsaga's payload codec, a key made for the run)",
    )
    return bench


def config_from(args: argparse.Namespace) -> BenchConfig:
    config = BenchConfig(
        concurrencies=args.concurrency,
        rounds=args.rounds,
        block=args.block,
        latency_samples=args.latency_samples,
        open_loop_samples=args.open_loop_samples,
        compensate_samples=args.compensate_samples,
        soak=max(args.soak, SOAK_FULL_SIZE) if args.full else args.soak,
        scaling=args.scaling or (SCALING_PROCESSES if args.full or args.only == "scaling" else ()),
        scaling_sagas=args.scaling_sagas,
        databases=DATABASES if args.database == "both" else (args.database,),
        variants=not args.no_variants,
        dbos=not args.no_dbos,
        contention=max(args.contention, CONTENTION_FULL_SIZE) if args.full else args.contention,
        contention_concurrency=args.contention_lanes,
        features=args.features,
        only=args.only,
        output_dir=args.output_dir,
        label=args.label,
        knobs=WorkerKnobs(
            max_concurrent_activities=args.activity_slots,
            max_concurrent_workflow_tasks=args.workflow_task_slots,
            max_cached_workflows=args.max_cached_workflows,
            sandbox=args.sandbox,
            sqlite_journal=args.sqlite_journal,
            eager_activities=args.eager_activities,
            codec=args.codec,
        ),
    )
    return config.smoke() if args.smoke else config


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every saga ended as its scenario expects, 1 otherwise (targets only report)."""
    config = config_from(args)
    if args.step_cost:
        for database in config.databases:
            cost = measure_step_cost(config.output_dir / "step-cost", args.step_cost, database)
            print(f"[{database}] {cost.line()}")
        return 0
    report = asyncio.run(run_bench(config))
    written = write_outputs(report, config.output_dir)
    print(table(report))
    print("wrote " + ", ".join(str(path) for path in written))
    lost = any(c.lost or c.invariant_findings for c in report.contention)
    return 1 if lost or any(result.failures for result in report.scenarios) else 0
