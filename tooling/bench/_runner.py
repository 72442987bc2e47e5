"""One benchmark run: stand up the server and worker, run every phase, assemble the report."""

from __future__ import annotations

import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

from tooling.bench._conditions import conditions
from tooling.bench._config import BenchConfig
from tooling.bench._contention import contention_shapes
from tooling.bench._dbos import NOT_INSTALLED, dbos_installed, dbos_worker
from tooling.bench._features import feature_costs
from tooling.bench._host import server_pid
from tooling.bench._load import Probe
from tooling.bench._results import (
    Contention,
    FeatureCost,
    Report,
    ScalingPoint,
    ScenarioResult,
    Soak,
)
from tooling.bench._scaling import scaling
from tooling.bench._scenarios import VARIANTS, Scenario, runner
from tooling.bench._session import Session, progress
from tooling.bench._soak import soak
from tooling.bench._stage import Stage, staged
from tooling.bench._summary import ratios, summarise
from tooling.bench._targets import Measured, scaling_target, server_features, targets

TEMPORAL_SCENARIOS = (
    Scenario.BARE,
    Scenario.BARE_LOCAL,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.COMPENSATE,
    Scenario.NAIVE,
)
SOAKED = (Scenario.ENGINE, Scenario.ENGINE_LOCAL)
__all__ = ["TEMPORAL_SCENARIOS", "Stage", "run_bench", "staged"]


@dataclass(kw_only=True)
class Sections:
    """What the sessions gather beside their scenarios."""

    soaks: list[Soak] = field(default_factory=list)
    shapes: list[Contention] = field(default_factory=list)
    features: list[FeatureCost] = field(default_factory=list)


def _runs(config: BenchConfig, section: str) -> bool:
    return config.only in (None, section)


async def _session(config: BenchConfig, database: str, sections: Sections) -> Report:
    async with staged(config, database) as stage, AsyncExitStack() as stack:
        client = stage.env.client
        probe = Probe(stage.worker_pids[0], server_pid())
        scenarios = TEMPORAL_SCENARIOS + (VARIANTS if config.variants else ())
        runners = {s: runner(s, client, stage.queues) for s in scenarios}
        probes = dict.fromkeys(runners, probe)
        dbos_status = _dbos_status(config)
        if dbos_status == "ok" and not config.only:
            dbos = await stack.enter_async_context(
                dbos_worker(
                    database,
                    stage.database_url,
                    config.output_dir / database / "dbos",
                    config.output_dir / "dbos.log",
                )
            )
            runners[Scenario.DBOS] = dbos.runner()
            probes[Scenario.DBOS] = Probe(dbos.pid, None)
        session = Session(config, probes, client, runners)
        measured = {} if config.only else await session.run()
        if config.features and _runs(config, "features") and not sections.features:
            progress(f"server CPU by engine feature on {database}")
            sections.features += await feature_costs(
                client,
                stage.queues.bench,
                probe,
                block=config.features,
                rounds=2 * config.rounds,
                concurrency=config.concurrencies[0],
            )
        if config.contention and _runs(config, "contention"):
            progress(f"contention shapes on {database}")
            sections.shapes += await contention_shapes(
                client,
                stage.queues.engine,
                stage.database_url,
                database,
                config.contention,
                config.contention_concurrency,
            )
        if config.soak and not sections.soaks and not config.only:
            for scenario in SOAKED:
                done = await soak(probe, runners[scenario], config.soak, scenario.value)
                sections.soaks.append(done)
    results = {s.value: summarise(s, m, database) for s, m in measured.items()}
    if measured and Scenario.DBOS not in measured:
        results[Scenario.DBOS.value] = ScenarioResult(
            name=Scenario.DBOS.value, database=database, status=dbos_status
        )
    return Report(
        label=config.label,
        conditions=conditions(config, peak_resettable=probe.peak_resettable),
        scenarios=list(results.values()),
        ratios={database: ratios(measured, results) if measured else {}},
        targets=[],
    )


def _dbos_status(config: BenchConfig) -> str:
    if not config.dbos:
        return "skipped (--no-dbos)"
    return "ok" if dbos_installed() else NOT_INSTALLED


async def run_bench(config: BenchConfig) -> Report:
    """Run every scenario, DBOS among them, on each database, each against an embedded dev
    server this run starts and stops; then the scaling run (when asked)."""
    started = time.perf_counter()
    sections = Sections()
    sessions: list[Report] = []
    config.output_dir.mkdir(parents=True, exist_ok=True)
    if config.only == "scaling":
        return await _scaling_alone(config, started)
    databases = config.databases[:1] if config.only == "features" else config.databases
    for database in databases:
        progress(f"session on {database}")
        sessions.append(await _session(config, database, sections))
    shapes, soaks = sections.shapes, sections.soaks
    contention_s = sum(c.elapsed_s for c in shapes)
    if config.only:
        report = sessions[0]
        report.contention, report.contention_s = shapes, round(contention_s, 1)
        report.features = sections.features
        report.targets = [server_features(sections.features)] if report.features else []
        report.elapsed_s = round(time.perf_counter() - started, 1)
        return report
    points: list[ScalingPoint] = []
    scaling_s = 0.0
    if config.scaling:
        scaling_started = time.perf_counter()
        points = await scaling(config)
        scaling_s = time.perf_counter() - scaling_started
    elapsed_s = time.perf_counter() - started
    full_extras_s = scaling_s + sum(s.elapsed_s for s in soaks)
    report = _report(config, sessions, sections, points, elapsed_s, full_extras_s)
    report.contention_s = round(contention_s, 1)
    return report


async def _scaling_alone(config: BenchConfig, started: float) -> Report:
    points = await scaling(config)
    elapsed_s = time.perf_counter() - started
    return Report(
        label=config.label,
        conditions=conditions(config, peak_resettable=True),
        scenarios=[],
        ratios={},
        targets=[scaling_target(points)],
        scaling=points,
        elapsed_s=round(elapsed_s, 1),
    )


def _report(
    config: BenchConfig,
    sessions: list[Report],
    sections: Sections,
    points: list[ScalingPoint],
    elapsed_s: float,
    full_extras_s: float,
) -> Report:
    scenarios = [r for s in sessions for r in s.scenarios]
    found = {db: r for s in sessions for db, r in s.ratios.items()}
    measured = Measured(
        ratios=found,
        scenarios=scenarios,
        concurrencies=config.concurrencies,
        soaks=sections.soaks,
        scaling=points,
        elapsed_s=elapsed_s,
        contention=sections.shapes,
        features=sections.features,
        full_extras_s=full_extras_s,
    )
    return Report(
        label=config.label,
        conditions=sessions[0].conditions,
        scenarios=scenarios,
        ratios=found,
        targets=targets(measured),
        soaks=sections.soaks,
        scaling=points,
        contention=sections.shapes,
        features=sections.features,
        elapsed_s=round(elapsed_s, 1),
    )
