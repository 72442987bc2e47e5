"""`fundsaga collector`: the gauges no single worker can know, served for Prometheus."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from sagas.app._cli_dev import registry_and_faults
from sagas.app._cli_errors import FAILURE
from sagas.app._cli_invocation import Invocation
from sagas.app._collector import Collection, VisibilityCollector
from sagas.app._collector_metrics import CollectorGauges, run_collector
from sagas.app._metrics_runtime import prometheus_runtime
from sagas.foundations import InvalidRequestError


def collector(
    ctx: typer.Context,
    once: Annotated[
        bool, typer.Option("--once", help="Collect once, print the figures and exit.")
    ] = False,
) -> None:
    """Parked and overdue sagas per type, the task queue's pollers and the ledger's invariants,
    served at FUNDSAGA_METRICS_ADDRESS. Run one per task queue."""
    invocation = Invocation.of(ctx)
    if once:
        collection = invocation.run(collect_once(invocation))
        print(render_collection(collection))
        if collection.ledger_findings:
            raise typer.Exit(FAILURE)
        return
    if not invocation.settings.metrics_address:
        raise InvalidRequestError("FUNDSAGA_METRICS_ADDRESS", "the collector needs an address")
    invocation.run(serve_collector(invocation))


async def _collector(invocation: Invocation, *, serve_metrics: bool) -> VisibilityCollector:
    settings = invocation.settings
    registry, _ = registry_and_faults(settings)
    temporal = await invocation.temporal(serve_metrics=serve_metrics)
    ledger = invocation.ledger() if settings.ledger_check_seconds else None
    return VisibilityCollector(temporal, settings.task_queue, [t.name for t in registry], ledger)


async def collect_once(invocation: Invocation) -> Collection:
    collector = await _collector(invocation, serve_metrics=False)
    return await collector.collect(datetime.now(UTC), check_ledger=True)


async def serve_collector(invocation: Invocation) -> None:
    settings = invocation.settings
    collector = await _collector(invocation, serve_metrics=True)
    gauges = CollectorGauges(prometheus_runtime(settings.metrics_address).metric_meter)
    print(
        f"collector for task queue {settings.task_queue!r} every {settings.collector_seconds} s; "
        f"metrics for Prometheus at http://{settings.metrics_address}/metrics"
    )
    ledger_every = settings.ledger_check_seconds
    await run_collector(
        collector,
        gauges,
        timedelta(seconds=settings.collector_seconds),
        timedelta(seconds=ledger_every) if ledger_every else None,
    )


def render_collection(collection: Collection) -> str:
    lines = [f"task queue {collection.task_queue}"]
    lines += [f"  pollers ({kind.value}): {count}" for kind, count in collection.pollers.items()]
    lines.append(f"  {'saga type':<24} {'parked':>7} {'oldest parked':>14} {'past deadline':>14}")
    for b in collection.backlogs:
        oldest = f"{int(b.oldest_needing_attention.total_seconds())} s"
        lines.append(
            f"  {b.saga_type:<24} {b.needing_attention:>7} {oldest:>14} {b.past_deadline:>14}"
        )
    findings = collection.ledger_findings
    if findings is None:
        lines.append("ledger: not checked (FUNDSAGA_LEDGER_CHECK_SECONDS=0)")
    elif not findings:
        lines.append("ledger: invariants hold")
    else:
        lines += ["ledger: invariants broken", *(f"  {f}" for f in findings)]
    return "\n".join(lines)
