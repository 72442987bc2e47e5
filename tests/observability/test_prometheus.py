"""A real Prometheus scrapes two `fundsaga worker` processes and `fundsaga collector` on a
PostgreSQL ledger and audit store: what it counts is what Temporal and the ledger report, and
every metric the alert rules and the dashboard name is in its scrape."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas import Money, SagaStatus, parse_money
from sagas.client import DevIdentityProvider, FundsagaClient, OperatorActions
from sagas.engine import SAGA_STATUS
from sagas.foundations import DATABASE_WORKER_ROLE, OperatorRefusedError
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from sagas.servers import free_port
from sagas.testing import (
    assert_eventually,
    kit_identity_environment,
    kit_operator,
    new_task_queue,
)
from tests.fixtures_audit import TEST_SIGNER
from tests.fixtures_db import postgres_role_url
from tests.observability.deploy_metrics import (
    alert_rule_files,
    metric_names_in_dashboard,
    metric_names_in_rules,
)
from tests.observability.prometheus_binaries import binary
from tests.schedules.launched import started
from workflows import AuditAnchorWorkflow

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300)]

# Transfers to carol time out once at capture after it committed (a retry); those to dave are
# refused at settle (a compensation); those to bob complete.
FAULTS = "capture=timeout*1@carol;settle=business@dave"
DESTINATIONS = ["bob"] * 10 + ["carol"] * 4 + ["dave"] * 4
AMOUNT = "10.00"
CLI = ("-c", "from sagas.cli import main; main()")


def eur(text: str) -> Money:
    return parse_money(text, "EUR")


class PrometheusServer:
    """Prometheus on a free port, its data in a temporary directory, over HTTP's query API."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str, **params: str) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=5) as response:
            body = json.load(response)
        assert body["status"] == "success", body
        return body["data"]

    def ready(self) -> None:
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=5) as response:
                assert response.status == 200
        except OSError as err:  # not listening yet
            raise AssertionError(f"Prometheus at {self.url} not ready: {err}") from None

    def vector(self, promql: str) -> dict[str, float]:
        """An instant query's samples, keyed by their labels as `k=v,...` (`""` for none)."""
        found = self.get("/api/v1/query", query=promql)
        return {
            ",".join(f"{k}={v}" for k, v in sorted(sample["metric"].items())): float(
                sample["value"][1]
            )
            for sample in found["result"]
        }

    def scalar(self, promql: str) -> float:
        values = list(self.vector(promql).values())
        assert len(values) == 1, (promql, values)
        return values[0]


ONLY_WITH_PAYLOAD_KEYS = {"fundsaga_plain_text_refused_total"}
"""Counted only by workers that encrypt, which this stack's are not (tests/codec/
test_fails_closed.py scrapes it from one that does)."""


@dataclass(frozen=True)
class Stack:
    temporal: Client
    task_queue: str
    ledger: Ledger
    prometheus: PrometheusServer
    processes: dict[Path, subprocess.Popen[bytes]]
    """Each process the stack started, by its log file."""

    def explain(self) -> str:
        """Whether each process runs, and the end of its log: why a target is not scraped."""
        lines = []
        for log, running in self.processes.items():
            code = running.poll()
            state = "running" if code is None else f"exited with {code}"
            tail = log.read_bytes()[-1500:].decode(errors="replace")
            lines.append(f"--- {log.name} (pid {running.pid}, {state}):\n{tail}")
        return "\n".join(lines)


@contextmanager
def process(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as output:
        started = subprocess.Popen(args, env={**os.environ, **env}, stdout=output, stderr=output)
    try:
        yield started
    finally:
        started.send_signal(signal.SIGTERM)
        try:
            started.wait(timeout=20)
        except subprocess.TimeoutExpired:
            started.kill()
            started.wait()


def prometheus_config(workers: list[str], collector: str) -> dict[str, Any]:
    return {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(path) for path in alert_rule_files()],
        "scrape_configs": [
            {"job_name": "fundsaga-worker", "static_configs": [{"targets": workers}]},
            {"job_name": "fundsaga-collector", "static_configs": [{"targets": [collector]}]},
        ],
    }


@pytest.fixture
async def stack(
    dev_env: WorkflowEnvironment, postgres_database: str, tmp_path: Path
) -> AsyncIterator[Stack]:
    prometheus_binary = binary("prometheus")
    url = postgres_role_url(postgres_database, DATABASE_WORKER_ROLE)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=eur("1000.00"))
    for name in ("bob", "carol", "dave"):
        ledger.open_account(name, "EUR")
    key = tmp_path / "audit-signing.key"
    TEST_SIGNER.write(key)
    task_queue = new_task_queue()
    env = {
        "TEMPORAL_ADDRESS": dev_env.client.service_client.config.target_host,
        "FUNDSAGA_TASK_QUEUE": task_queue,
        "FUNDSAGA_DATABASE_URL": url,
        "FUNDSAGA_AUDIT_STORE": url,
        "FUNDSAGA_AUDIT_ANCHOR_STORE": f"dir:{tmp_path / 'anchors'}",
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(key),
        "FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0",
        "FUNDSAGA_FAULTS": FAULTS,
        **kit_identity_environment(),
        "FUNDSAGA_COLLECTOR_SECONDS": "1",
        "FUNDSAGA_LEDGER_CHECK_SECONDS": "1",
    }
    workers = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    collector = f"127.0.0.1:{free_port()}"
    config = tmp_path / "prometheus.yml"
    config.write_text(json.dumps(prometheus_config(workers, collector)))  # JSON is YAML
    port = free_port()
    processes: dict[Path, subprocess.Popen[bytes]] = {}
    with ExitStack() as running:

        def start(args: list[str], env: dict[str, str], log: Path) -> None:
            processes[log] = running.enter_context(process(args, env, log))

        for n, address in enumerate(workers):
            args = [sys.executable, *CLI, "worker"]
            worker_env = {**env, "FUNDSAGA_METRICS_ADDRESS": address}
            start(args, worker_env, tmp_path / f"worker-{n}.log")
        collector_env = {**env, "FUNDSAGA_METRICS_ADDRESS": collector}
        start([sys.executable, *CLI, "collector"], collector_env, tmp_path / "collector.log")
        prometheus_args = [
            prometheus_binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ]
        start(prometheus_args, {}, tmp_path / "prometheus.log")
        server = PrometheusServer(f"http://127.0.0.1:{port}")
        await assert_eventually(server.ready, timeout=timedelta(seconds=30))
        yield Stack(dev_env.client, task_queue, ledger, server, processes)
    ledger.close_connections()


async def transfer(client: FundsagaClient, destination: str) -> SagaStatus:
    key = f"prom-{uuid.uuid4().hex[:12]}"
    await client.start(
        "transfer",
        {
            "idempotency_key": key,
            "source_account": "alice",
            "destination_account": destination,
            "amount": AMOUNT,
            "currency": "EUR",
        },
    )
    return (await client.saga("transfer", key).outcome()).status


async def scheduled_transfer(client: FundsagaClient) -> SagaStatus:
    """One run of an hourly schedule, backfilled for 01:00 UTC on 2026-01-01."""
    schedules = client.schedules()
    schedule_id = f"prom-{uuid.uuid4().hex[:8]}"
    request = {"source_account": "alice", "destination_account": "bob"}
    await schedules.create(
        schedule_id,
        "transfer",
        "0 * * * *",
        "UTC",
        {**request, "amount": AMOUNT, "currency": "EUR"},
    )
    start = datetime(2026, 1, 1, 0, 30, tzinfo=UTC)
    await schedules.backfill(schedule_id, start, start + timedelta(hours=1))
    key = f"{schedule_id}@2026-01-01T01:00"
    await assert_eventually(lambda: started(client, key))
    outcome = await client.saga("transfer", key).outcome()
    await schedules.delete(schedule_id)
    return outcome.status


async def test_prometheus_counts_what_temporal_and_the_ledger_report(
    stack: Stack, tmp_path: Path
) -> None:
    prometheus, queue = stack.prometheus, stack.task_queue

    def both_workers_poll() -> None:
        assert prometheus.scalar('sum(up{job="fundsaga-worker"})') == 2
        pollers = f'fundsaga_task_queue_pollers{{task_queue="{queue}",kind="activity"}}'
        assert prometheus.vector(pollers)
        assert prometheus.scalar(pollers) == 2

    try:
        # Two worker processes start while the rest of the suite loads both cores.
        await assert_eventually(both_workers_poll, timeout=timedelta(seconds=120))
    except AssertionError as failed:
        failed.add_note(stack.explain())
        raise
    # Each worker exports its compensations at 0 from its start, so the first ones are an increase.
    compensable = sum(
        len(saga_type.workflows) * sum(1 for s in saga_type.definition.steps if s.compensation)
        for saga_type in built_in_registry()
    )
    at_zero = f'fundsaga_compensations_total{{task_queue="{queue}",outcome="compensated"}}'

    def compensations_at_zero() -> None:
        assert prometheus.vector(f"count({at_zero} == 0)") == {"": 2.0 * compensable}

    await assert_eventually(compensations_at_zero, timeout=timedelta(seconds=30))
    client = FundsagaClient(stack.temporal, queue, stack.ledger, operator=kit_operator("ops"))
    statuses = await asyncio.gather(*(transfer(client, to) for to in DESTINATIONS))
    statuses.append(await scheduled_transfer(client))
    await stack.temporal.execute_workflow(
        AuditAnchorWorkflow.run, id=f"anchor-{uuid.uuid4()}", task_queue=queue
    )
    finished = f'sum(fundsaga_sagas_finished_total{{task_queue="{queue}"}})'

    def all_finished_scraped() -> None:
        assert prometheus.vector(finished)
        assert prometheus.scalar(finished) == len(DESTINATIONS) + 1

    await assert_eventually(all_finished_scraped, timeout=timedelta(seconds=60))

    by_status = prometheus.vector(
        f'sum by (status) (fundsaga_sagas_finished_total{{task_queue="{queue}"}}) > 0'
    )
    in_temporal = {}
    for status in (SagaStatus.COMPLETED, SagaStatus.COMPENSATED):
        query = f"TaskQueue = '{queue}' AND {SAGA_STATUS.name} = '{status}'"
        in_temporal[f"status={status}"] = float((await stack.temporal.count_workflows(query)).count)
    assert by_status == in_temporal == {"status=COMPLETED": 15.0, "status=COMPENSATED": 4.0}
    assert sorted(statuses) == sorted(
        SagaStatus.COMPENSATED if to == "dave" else SagaStatus.COMPLETED
        for to in [*DESTINATIONS, "bob"]
    )
    # The ledger moved exactly the completed transfers' money; the compensated left nothing.
    paid = stack.ledger.account("bob").balance + stack.ledger.account("carol").balance
    assert paid.minor == eur(AMOUNT).minor * by_status["status=COMPLETED"]
    assert stack.ledger.account("dave").balance.minor == 0
    started = f'sum(fundsaga_sagas_started_total{{task_queue="{queue}"}})'
    assert prometheus.scalar(started) == len(DESTINATIONS) + 1

    def the_scheduled_run_counted() -> None:
        runs = prometheus.vector(
            f'sum by (status) (fundsaga_scheduled_runs_total{{task_queue="{queue}"}})'
        )
        assert runs == {"status=COMPLETED": 1.0}

    await assert_eventually(the_scheduled_run_counted, timeout=timedelta(seconds=30))
    retried = f'sum(fundsaga_step_retries_total{{task_queue="{queue}",step="capture"}})'
    assert prometheus.scalar(retried) == DESTINATIONS.count("carol")
    compensated = f'sum(fundsaga_compensations_total{{task_queue="{queue}",outcome="compensated"}})'
    assert prometheus.scalar(compensated) > 0
    # Every compensation is an increase from the 0 the workers exported at their start.
    counted = prometheus.scalar(f"sum({at_zero})")
    assert prometheus.scalar(f"sum(increase({at_zero}[10m]))") >= counted > 0
    # Both workers ran steps: each is a scrape target with attempts of its own.
    per_worker = prometheus.vector(
        f'sum by (instance) (fundsaga_step_attempts_total{{task_queue="{queue}"}})'
    )
    assert len(per_worker) == 2, per_worker
    assert all(count > 0 for count in per_worker.values()), per_worker

    def collector_saw_a_sound_ledger() -> None:
        assert prometheus.scalar("fundsaga_ledger_invariant_violations") == 0
        assert prometheus.scalar('sum(fundsaga_ledger_checks_total{result="holds"})') > 0

    await assert_eventually(collector_saw_a_sound_ledger, timeout=timedelta(seconds=30))

    forger = DevIdentityProvider(tmp_path / "forger").operator("mallory")
    with pytest.raises(OperatorRefusedError):
        await OperatorActions(stack.temporal, queue, forger).propose_funding(
            "bob", eur("1.00"), "not mine to fund"
        )
    named = metric_names_in_rules() | metric_names_in_dashboard()

    def every_named_metric_scraped() -> None:
        scraped = set(prometheus.get("/api/v1/label/__name__/values"))
        assert named - scraped - ONLY_WITH_PAYLOAD_KEYS == set()

    await assert_eventually(every_named_metric_scraped, timeout=timedelta(seconds=30))
    rules = [rule for group in prometheus.get("/api/v1/rules")["groups"] for rule in group["rules"]]
    assert rules
    assert [r["name"] for r in rules if r["health"] != "ok"] == []
