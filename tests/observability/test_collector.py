"""The collector: parked and overdue sagas and the task queue's pollers from Temporal's
visibility, the ledger's invariants from the ledger, as gauges in a scrape and as
`fundsaga collector --once` prints them."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import parse_money
from sagas.client import FundsagaClient
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.servers import (
    Collection,
    CollectorGauges,
    PollerKind,
    SagaTypeBacklog,
    VisibilityCollector,
    free_port,
    run_collector,
)
from sagas.telemetry import prometheus_runtime
from sagas.testing import assert_eventually, new_task_queue
from tests.fixtures_cli import Stack, fundsaga
from tests.observability.scraping import scrape

SAGA_TYPES = ("transfer", "escrow")


def backlog(collection: Collection, saga_type: str) -> SagaTypeBacklog:
    return next(b for b in collection.backlogs if b.saga_type == saga_type)


def broken_ledger(directory: Path) -> tuple[Ledger, str]:
    """A ledger whose cached balance of `alice` no longer matches her postings, as a database
    owner who dropped the ledger's guards could leave it; its URL."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"broken-{uuid.uuid4().hex[:8]}.db"
    url = f"sqlite:///{path}"
    upgrade_database(url)
    ledger = Ledger.from_url(url)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("100.00", "EUR"))
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        triggers = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for (name,) in triggers:
            db.execute(f'DROP TRIGGER "{name}"')
        db.execute("UPDATE account SET balance = balance + 100 WHERE account_id = 'alice'")
    return ledger, url


async def test_a_parked_saga_and_the_queue_s_pollers_are_counted(cli_stack: Stack) -> None:
    queue = cli_stack.env["FUNDSAGA_TASK_QUEUE"]
    collector = VisibilityCollector(cli_stack.client.temporal, queue, SAGA_TYPES, cli_stack.ledger)
    started = datetime.now(UTC)

    async def parked_seen() -> Collection:
        collection = await collector.collect(datetime.now(UTC), check_ledger=True)
        assert backlog(collection, "escrow").needing_attention == 1
        return collection

    collection = await assert_eventually(parked_seen)

    escrow, transfer = backlog(collection, "escrow"), backlog(collection, "transfer")
    assert timedelta() < escrow.oldest_needing_attention < timedelta(minutes=5)
    assert (transfer.needing_attention, transfer.oldest_needing_attention) == (0, timedelta())
    assert escrow.past_deadline == transfer.past_deadline == 0
    assert collection.pollers[PollerKind.WORKFLOW] >= 1
    assert collection.pollers[PollerKind.ACTIVITY] >= 1
    assert collection.ledger_findings == []
    assert datetime.now(UTC) - started < timedelta(minutes=1)


async def test_a_saga_no_worker_runs_is_past_its_deadline_on_a_queue_nobody_polls(
    dev_env: WorkflowEnvironment, cli_stack: Stack
) -> None:
    queue = new_task_queue()
    client = FundsagaClient(dev_env.client, queue, cli_stack.ledger)
    await client.start(
        "transfer",
        {
            "idempotency_key": f"late-{uuid.uuid4().hex[:10]}",
            "source_account": "alice",
            "destination_account": "bob",
            "amount": "1.00",
            "currency": "EUR",
            "deadline_seconds": 1,
        },
    )
    collector = VisibilityCollector(dev_env.client, queue, SAGA_TYPES, None)
    await asyncio.sleep(1.2)

    async def overdue_seen() -> Collection:
        collection = await collector.collect(datetime.now(UTC), check_ledger=True)
        assert backlog(collection, "transfer").past_deadline == 1
        return collection

    collection = await assert_eventually(overdue_seen)

    assert collection.pollers == {PollerKind.WORKFLOW: 0, PollerKind.ACTIVITY: 0}
    assert backlog(collection, "escrow").past_deadline == 0
    assert collection.ledger_findings is None  # no ledger given: never checked


async def test_the_gauges_in_a_scrape(cli_stack: Stack, tmp_path: Path) -> None:
    queue = cli_stack.env["FUNDSAGA_TASK_QUEUE"]
    address = f"127.0.0.1:{free_port()}"
    gauges = CollectorGauges(prometheus_runtime(address).metric_meter)
    ledger, _ = broken_ledger(tmp_path)
    collector = VisibilityCollector(cli_stack.client.temporal, queue, SAGA_TYPES, ledger)
    every = timedelta(milliseconds=200)
    running = asyncio.create_task(run_collector(collector, gauges, every, timedelta(hours=1)))
    try:

        def scraped_parked() -> None:
            seen = scrape(address)
            labels = {"task_queue": queue, "saga_type": "escrow"}
            assert seen.total("fundsaga_sagas_needing_attention", **labels) == 1
            assert seen.total("fundsaga_collector_runs_total", result="success") >= 2

        await assert_eventually(scraped_parked)
    finally:
        running.cancel()
    seen = scrape(address)

    labels = {"task_queue": queue, "saga_type": "escrow"}
    assert 0 < seen.total("fundsaga_oldest_needing_attention_age_seconds", **labels) < 300
    assert seen.total("fundsaga_sagas_past_deadline", **labels) == 0
    assert seen.total("fundsaga_task_queue_pollers", task_queue=queue, kind="workflow") >= 1
    # The ledger is checked once an hour here: once, and it found alice's balance wrong.
    assert seen.total("fundsaga_ledger_checks_total", result="broken") == 1
    assert seen.total("fundsaga_ledger_invariant_violations") >= 1
    last = seen.total("fundsaga_collector_last_success_timestamp_seconds")
    assert abs(datetime.now(UTC).timestamp() - last) < 60


async def test_collector_once_prints_the_figures(cli_stack: Stack) -> None:
    result = await fundsaga(cli_stack, "collector", "--once")

    assert result.exit_code == 0, result.output
    queue = cli_stack.env["FUNDSAGA_TASK_QUEUE"]
    lines = result.output.splitlines()
    assert lines[0] == f"task queue {queue}"
    escrow = next(line.split() for line in lines if line.strip().startswith("escrow"))
    assert escrow[:2] == ["escrow", "1"]
    assert "ledger: invariants hold" in lines


async def test_collector_once_fails_on_a_broken_ledger(cli_stack: Stack, tmp_path: Path) -> None:
    _, url = broken_ledger(tmp_path)

    result = await fundsaga(cli_stack, "collector", "--once", FUNDSAGA_DATABASE_URL=url)

    assert result.exit_code == 1
    assert "ledger: invariants broken" in result.output
    assert "alice" in result.output


async def test_serving_needs_an_address(cli_stack: Stack) -> None:
    result = await fundsaga(cli_stack, "collector", FUNDSAGA_METRICS_ADDRESS="")

    assert result.exit_code == 2
    assert "FUNDSAGA_METRICS_ADDRESS" in result.output


@pytest.mark.parametrize(
    "variable", ["FUNDSAGA_COLLECTOR_SECONDS", "FUNDSAGA_LEDGER_CHECK_SECONDS"]
)
async def test_a_bad_interval_is_refused_by_name(cli_stack: Stack, variable: str) -> None:
    result = await fundsaga(cli_stack, "collector", "--once", **{variable: "-1"})

    assert result.exit_code == 2
    assert variable in result.output
