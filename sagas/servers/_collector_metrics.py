"""The collector's figures as Prometheus gauges, on the SDK runtime's own metric meter (served by
the same exporter as a worker's metrics), and the loop that refreshes them."""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from temporalio.common import MetricMeter

from sagas.servers._collector import Collection, VisibilityCollector

NEEDING_ATTENTION = "fundsaga_sagas_needing_attention"
OLDEST_NEEDING_ATTENTION = "fundsaga_oldest_needing_attention_age_seconds"
PAST_DEADLINE = "fundsaga_sagas_past_deadline"
WAITING_ON_INFRASTRUCTURE = "fundsaga_sagas_waiting_on_infrastructure"
OLDEST_INFRASTRUCTURE_WAIT = "fundsaga_oldest_infrastructure_wait_age_seconds"
KILLED = "fundsaga_sagas_killed"
TASK_QUEUE_POLLERS = "fundsaga_task_queue_pollers"
LEDGER_VIOLATIONS = "fundsaga_ledger_invariant_violations"
LEDGER_CHECKS = "fundsaga_ledger_checks"
RECONCILIATION_BREAKS = "fundsaga_reconciliation_breaks"
OLDEST_BREAK = "fundsaga_reconciliation_oldest_break_age_seconds"
COLLECTOR_RUNS = "fundsaga_collector_runs"
COLLECTOR_LAST_SUCCESS = "fundsaga_collector_last_success_timestamp_seconds"
COLLECTOR_LEDGER_UP = "fundsaga_collector_ledger_up"

log = logging.getLogger("fundsaga.collector")


class RunResult(StrEnum):
    SUCCESS = "success"  # both parts ran (or only Temporal's, when no ledger is watched)
    LEDGER_FAILED = "ledger_failed"  # Temporal's part ran and was published, the ledger's failed
    FAILURE = "failure"  # Temporal's part failed; the ledger's, if it ran, was published

    @classmethod
    def of(cls, collection: Collection) -> RunResult:
        if collection.temporal_error is not None:
            return cls.FAILURE
        return cls.SUCCESS if collection.ledger_error is None else cls.LEDGER_FAILED


class CollectorGauges:
    def __init__(self, meter: MetricMeter) -> None:
        self._parked = meter.create_gauge(
            NEEDING_ATTENTION, "Sagas parked in NEEDS_ATTENTION, waiting for an operator."
        )
        self._oldest = meter.create_gauge_float(
            OLDEST_NEEDING_ATTENTION, "How long the longest-parked saga has been parked.", "s"
        )
        self._overdue = meter.create_gauge(
            PAST_DEADLINE, "Sagas still RUNNING after their deadline passed."
        )
        self._waiting = meter.create_gauge(
            WAITING_ON_INFRASTRUCTURE,
            "Sagas waiting out a fault of the infrastructure; they go on by themselves.",
        )
        self._longest_wait = meter.create_gauge_float(
            OLDEST_INFRASTRUCTURE_WAIT,
            "How long the longest wait of a saga on the infrastructure has lasted.",
            "s",
        )
        self._killed = meter.create_gauge(
            KILLED, "Sagas closed from outside (terminated, timed out), not yet recovered."
        )
        self._pollers = meter.create_gauge(
            TASK_QUEUE_POLLERS, "Workers that polled the task queue in the last two minutes."
        )
        self._violations = meter.create_gauge(
            LEDGER_VIOLATIONS, "Findings of the last ledger invariant check; 0 when sound."
        )
        self._breaks = meter.create_gauge(
            RECONCILIATION_BREAKS,
            "Reconciliation breaks not resolved or matched, by kind and age (under 1h, 1d, 7d).",
        )
        self._oldest_break = meter.create_gauge_float(
            OLDEST_BREAK,
            "How long the oldest open reconciliation break of a kind has been open.",
            "s",
        )
        self._checks = meter.create_counter(LEDGER_CHECKS, "Ledger invariant checks, by result.")
        self._runs = meter.create_counter(COLLECTOR_RUNS, "Collector runs, by result.")
        self._last_success = meter.create_gauge_float(
            COLLECTOR_LAST_SUCCESS,
            "Unix time of the collector's last run that read Temporal (its saga gauges are fresh).",
            "s",
        )
        self._ledger_up = meter.create_gauge(
            COLLECTOR_LEDGER_UP,
            "1 when the collector's last run read the ledger, 0 when it failed: the ledger's "
            "gauges then keep their last value.",
        )

    def publish(self, collection: Collection, at: datetime) -> None:
        """Whatever each part found; a part that failed leaves its gauges at their last value."""
        queue = {"task_queue": collection.task_queue}
        for backlog in collection.backlogs:
            labels = {**queue, "saga_type": backlog.saga_type}
            self._parked.set(backlog.needing_attention, labels)
            self._oldest.set(backlog.oldest_needing_attention.total_seconds(), labels)
            self._overdue.set(backlog.past_deadline, labels)
            self._waiting.set(backlog.waiting_on_infrastructure, labels)
            self._longest_wait.set(backlog.oldest_infrastructure_wait.total_seconds(), labels)
            self._killed.set(backlog.killed, labels)
        for kind, count in collection.pollers.items():
            self._pollers.set(count, {**queue, "kind": kind.value})
        for breaks in collection.breaks:
            for age, count in breaks.by_age.items():
                self._breaks.set(count, {"kind": breaks.kind.value, "age": age})
            self._oldest_break.set(breaks.oldest.total_seconds(), {"kind": breaks.kind.value})
        if collection.ledger_findings is not None:
            self._violations.set(len(collection.ledger_findings))
            self._checks.add(1, {"result": "broken" if collection.ledger_findings else "holds"})
        if collection.ledger_watched:
            self._ledger_up.set(0 if collection.ledger_error else 1)
        self._runs.add(1, {"result": RunResult.of(collection).value})
        if collection.temporal_error is None:
            self._last_success.set(at.timestamp())

    def failed(self) -> None:
        """Deprecated since 0.1.1: `publish` counts a failed run from its Collection."""
        warnings.warn(
            "CollectorGauges.failed() is deprecated: publish() counts a failed run",
            DeprecationWarning,
            stacklevel=2,
        )
        self._runs.add(1, {"result": RunResult.FAILURE.value})


async def run_collector(
    collector: VisibilityCollector,
    gauges: CollectorGauges,
    every: timedelta,
    ledger_every: timedelta | None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> None:
    """Collect every `every`, checking the ledger at most every `ledger_every` (never when
    None), until cancelled. A part that failed is counted and logged, what the other found is
    published; the next run tries both again."""
    ledger_checked: datetime | None = None
    while True:
        now = clock()
        check_ledger = ledger_every is not None and (
            ledger_checked is None or now - ledger_checked >= ledger_every
        )
        collection = await collect_and_publish(collector, gauges, now, check_ledger=check_ledger)
        if collection.ledger_findings is not None:
            ledger_checked = now
        await asyncio.sleep(every.total_seconds())


async def collect_and_publish(
    collector: VisibilityCollector, gauges: CollectorGauges, now: datetime, *, check_ledger: bool
) -> Collection:
    """One run: collected, published, and each failed part and broken invariant logged."""
    collection = await collector.collect(now, check_ledger=check_ledger)
    gauges.publish(collection, now)
    if collection.temporal_error is not None:
        log.warning("collector: Temporal not read: %s", collection.temporal_error)
    if collection.ledger_error is not None:
        log.warning("collector: ledger not checked: %s", collection.ledger_error)
    for finding in collection.ledger_findings or ():
        log.error("ledger invariant broken: %s", finding)
    return collection
