"""The collector during an outage of one of the two systems it reads. With the ledger's
PostgreSQL database refusing connections, a transfer waits on the infrastructure, and the
collector still publishes it (and a real Prometheus's alert on it goes pending), says the ledger
was not checked and why, and `fundsaga sagas list --waiting` names the fault; with Temporal down,
the collector still publishes the ledger's figures."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from sagas import parse_faults, parse_money
from sagas.cli import app
from sagas.client import FundsagaClient
from sagas.foundations import DATABASE_WORKER_ROLE
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from sagas.servers import (
    Collection,
    CollectorGauges,
    SagaTypeBacklog,
    VisibilityCollector,
    collect_and_publish,
    free_port,
)
from sagas.telemetry import prometheus_runtime
from sagas.testing import (
    assert_eventually,
    dev_server_environment,
    directory_audit_store,
    new_task_queue,
    saga_worker,
)
from tests.fixtures_audit import TEST_SIGNER
from tests.fixtures_db import postgres_role_url
from tests.observability.deploy_metrics import alert_rule_files
from tests.observability.prometheus_binaries import binary
from tests.observability.scraping import Scrape, scrape
from tests.observability.test_collector import broken_ledger
from tests.observability.test_prometheus import PrometheusServer, process

pytestmark = pytest.mark.slow

TRANSFER = built_in_registry().get("transfer")
CREDIT_ON_A_DATABASE_DOWN = "credit=transient(DatabaseBusyError)*1000"
"""The transfer's credit fails on the database run after run: the saga waits it out, for longer
than any test here lasts."""
SIX_MINUTES_IN = timedelta(minutes=6)
"""How far into the outage the collector's clock reads in the Prometheus test: the saga's wait
is then past the alert's five minutes."""
RUNNER = CliRunner()


@dataclass(frozen=True)
class LedgerDown:
    queue: str
    url: str
    """The ledger's URL, as the collector and the CLI connect to it."""
    collector: VisibilityCollector
    saga_id: str


def backlog(collection: Collection) -> SagaTypeBacklog:
    return next(b for b in collection.backlogs if b.saga_type == "transfer")


def exported(seen: Scrape, name: str) -> bool:
    return any(sample.name == name for sample in seen.samples)


def allow_connections(admin: Engine, database: str, *, allowed: bool) -> None:
    """The database accepts connections again, or refuses new ones and drops those it has, as a
    database that went down does."""
    with admin.connect() as connection:
        connection.exec_driver_sql(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {allowed}')
        if not allowed:
            connection.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            )


@pytest.fixture
async def ledger_down(
    dev_env: WorkflowEnvironment, postgres_admin: Engine, postgres_database: str, tmp_path: Path
) -> AsyncIterator[LedgerDown]:
    """A transfer waiting on the infrastructure, seen by the collector, and then the database of
    the ledger (the worker's and the collector's) down until the test ends."""
    url = postgres_role_url(postgres_database, DATABASE_WORKER_ROLE)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("10.00", "EUR"))
    ledger.open_account("bob", "EUR")
    queue = new_task_queue()
    collector = VisibilityCollector(dev_env.client, queue, ["transfer"], ledger)
    audit = directory_audit_store(tmp_path / "audit")
    faults = parse_faults(CREDIT_ON_A_DATABASE_DOWN)
    async with saga_worker(dev_env, [TRANSFER], ledger, audit, task_queue=queue, faults=faults):
        key = f"down-{uuid.uuid4().hex[:10]}"
        request = {"source_account": "alice", "destination_account": "bob"}
        await FundsagaClient(dev_env.client, queue).start(
            "transfer", {"idempotency_key": key, **request, "amount": "1.00", "currency": "EUR"}
        )

        async def waiting_seen() -> None:
            collection = await collector.collect(datetime.now(UTC), check_ledger=True)
            assert collection.ledger_error is None
            assert backlog(collection).waiting_on_infrastructure == 1

        await assert_eventually(waiting_seen, timeout=timedelta(seconds=60))
        allow_connections(postgres_admin, postgres_database, allowed=False)
        saga_id = f"transfer-{key}"
        try:
            yield LedgerDown(queue, url, collector, saga_id)
        finally:
            allow_connections(postgres_admin, postgres_database, allowed=True)
            await dev_env.client.get_workflow_handle(saga_id).terminate("the test is over")
    ledger.close_connections()


def invoke(home: Path, env: dict[str, str], *argv: str) -> Result:
    with contextlib.chdir(home):
        return RUNNER.invoke(app, list(argv), env=env, prog_name="fundsaga")


async def fundsaga(home: Path, env: dict[str, str], *argv: str) -> Result:
    """`fundsaga ARGV` in-process, off the loop that runs the worker."""
    return await asyncio.to_thread(invoke, home, env, *argv)


@pytest.mark.postgres
async def test_with_the_ledger_s_database_down_the_sagas_waiting_on_it_are_published(
    ledger_down: LedgerDown, caplog: pytest.LogCaptureFixture
) -> None:
    address = f"127.0.0.1:{free_port()}"
    gauges = CollectorGauges(prometheus_runtime(address).metric_meter)
    now = datetime.now(UTC)

    with caplog.at_level(logging.WARNING, logger="fundsaga.collector"):
        collection = await collect_and_publish(
            ledger_down.collector, gauges, now, check_ledger=True
        )
    seen = scrape(address)

    assert collection.ledger_error is not None
    assert "not currently accepting connections" in collection.ledger_error
    assert (collection.ledger_findings, collection.breaks, collection.temporal_error) == (
        None,
        [],
        None,
    )
    labels = {"task_queue": ledger_down.queue, "saga_type": "transfer"}
    assert seen.total("fundsaga_sagas_waiting_on_infrastructure", **labels) == 1
    assert 0 <= seen.total("fundsaga_oldest_infrastructure_wait_age_seconds", **labels) < 300
    assert exported(seen, "fundsaga_collector_ledger_up")
    assert seen.total("fundsaga_collector_ledger_up") == 0
    assert seen.total("fundsaga_collector_runs_total", result="ledger_failed") == 1
    assert seen.total("fundsaga_collector_runs_total", result="success") == 0
    last_success = seen.total("fundsaga_collector_last_success_timestamp_seconds")
    assert last_success == pytest.approx(now.timestamp())
    # Never checked by this collector: there is no last value to keep, so none is made up.
    assert not exported(seen, "fundsaga_ledger_invariant_violations")
    logged = [r.getMessage() for r in caplog.records if r.name == "fundsaga.collector"]
    assert logged == [f"collector: ledger not checked: {collection.ledger_error}"]


@pytest.mark.postgres
async def test_during_the_outage_the_cli_names_each_fault_and_what_was_not_checked(
    dev_env: WorkflowEnvironment, ledger_down: LedgerDown, tmp_path: Path
) -> None:
    env = {
        "TEMPORAL_ADDRESS": dev_env.client.service_client.config.target_host,
        "FUNDSAGA_TASK_QUEUE": ledger_down.queue,
        "FUNDSAGA_DATABASE_URL": ledger_down.url,
    }

    once = await fundsaga(tmp_path, env, "collector", "--once")
    listed = await fundsaga(tmp_path, env, "sagas", "list", "--waiting", "--output", "json")
    table = await fundsaga(tmp_path, env, "sagas", "list", "--type", "transfer", "--waiting")

    assert once.exit_code == 1, once.output
    lines = once.output.splitlines()
    assert any(line.startswith("ledger: not checked: ") for line in lines), once.output
    assert "not currently accepting connections" in once.output
    transfer = next(line.split() for line in lines if line.strip().startswith("transfer"))
    assert transfer[-3] == "1"  # waiting, then the longest wait in seconds
    assert listed.exit_code == 0, listed.output
    [waiting] = json.loads(listed.stdout)
    assert (waiting["saga_id"], waiting["status"]) == (ledger_down.saga_id, "RUNNING")
    assert waiting["waiting_on"] == "DatabaseBusyError"
    since = datetime.fromisoformat(waiting["waiting_since"])
    assert abs(datetime.now(UTC) - since) < timedelta(minutes=2)
    assert 0 <= waiting["waited_seconds"] < 120
    assert table.exit_code == 0, table.output
    row = next(line.split() for line in table.stdout.splitlines() if ledger_down.saga_id in line)
    assert row[4:6] == ["DatabaseBusyError", since.isoformat(timespec="seconds")]


@pytest.mark.postgres
@pytest.mark.long
async def test_prometheus_sees_the_waiting_sagas_and_the_ledger_failing_as_alerts(
    ledger_down: LedgerDown, tmp_path: Path
) -> None:
    """The rules' expressions hold on the gauges a real Prometheus scraped: both alerts go
    pending at once (their `for:` then runs out as alerts.test.yml proves with promtool)."""
    prometheus_binary = binary("prometheus")
    address = f"127.0.0.1:{free_port()}"
    gauges = CollectorGauges(prometheus_runtime(address).metric_meter)
    later = datetime.now(UTC) + SIX_MINUTES_IN
    await collect_and_publish(ledger_down.collector, gauges, later, check_ledger=True)
    config = tmp_path / "prometheus.yml"
    config.write_text(
        json.dumps(  # JSON is YAML
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(path) for path in alert_rule_files()],
                "scrape_configs": [
                    {"job_name": "fundsaga-collector", "static_configs": [{"targets": [address]}]}
                ],
            }
        )
    )
    port = free_port()
    args = [
        prometheus_binary,
        f"--config.file={config}",
        f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--log.level=warn",
    ]
    log = tmp_path / "prometheus.log"
    with process(args, {}, log) as running:
        prometheus = PrometheusServer(f"http://127.0.0.1:{port}")

        def alerts_active() -> dict[str, str]:
            alerts = prometheus.get("/api/v1/alerts")["alerts"]
            active = {alert["labels"]["alertname"]: alert["state"] for alert in alerts}
            assert "FundsagaSagasWaitingOnInfrastructure" in active, active
            assert "FundsagaCollectorLedgerFailing" in active, active
            return active

        try:
            await assert_eventually(prometheus.ready, timeout=timedelta(seconds=30))
            active = await assert_eventually(alerts_active, timeout=timedelta(seconds=30))
        except AssertionError as failed:
            failed.add_note(_explain(running, log))
            raise
        waiting = prometheus.vector(
            f'fundsaga_sagas_waiting_on_infrastructure{{task_queue="{ledger_down.queue}"}}'
        )

    assert list(waiting.values()) == [1.0]
    assert active["FundsagaSagasWaitingOnInfrastructure"] in {"pending", "firing"}
    assert active["FundsagaCollectorLedgerFailing"] in {"pending", "firing"}
    assert "FundsagaCollectorStale" not in active


def _explain(running: subprocess.Popen[bytes], log: Path) -> str:
    code = running.poll()
    state = "running" if code is None else f"exited with {code}"
    return f"prometheus {state}:\n{log.read_bytes()[-1500:].decode(errors='replace')}"


async def test_with_temporal_down_the_ledger_s_figures_are_published(tmp_path: Path) -> None:
    ledger, _ = broken_ledger(tmp_path)
    async with dev_server_environment() as temporal:
        collector = VisibilityCollector(temporal.client, new_task_queue(), ["transfer"], ledger)
    # The server has stopped: every question to Temporal fails.
    address = f"127.0.0.1:{free_port()}"
    gauges = CollectorGauges(prometheus_runtime(address).metric_meter)

    collection = await collect_and_publish(collector, gauges, datetime.now(UTC), check_ledger=True)
    seen = scrape(address)

    assert collection.temporal_error is not None
    assert (collection.backlogs, collection.pollers) == ([], {})
    assert collection.ledger_error is None
    assert any("alice" in finding for finding in collection.ledger_findings or [])
    assert seen.total("fundsaga_ledger_invariant_violations") >= 1
    assert seen.total("fundsaga_ledger_checks_total", result="broken") == 1
    assert seen.total("fundsaga_collector_ledger_up") == 1
    assert seen.total("fundsaga_collector_runs_total", result="failure") == 1
    assert not exported(seen, "fundsaga_collector_last_success_timestamp_seconds")
    assert not exported(seen, "fundsaga_sagas_waiting_on_infrastructure")
