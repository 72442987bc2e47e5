"""deploy/grafana/fundsaga.json: a Grafana dashboard whose panels all query the Prometheus data
source the importer picks, with every panel the operations guide lists, and queries that
Prometheus parses."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.observability.deploy_metrics import dashboard, dashboard_exprs
from tests.observability.prometheus_binaries import binary

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
# The Temporal server's own workers export the SDK's metrics too, on its system task queues.
FUNDSAGA_WORKERS = 'job="fundsaga-worker"'
REQUIRED = [
    "Sagas finished by status and type",
    "Sagas started by type",
    "Retries by error class",
    "NEEDS_ATTENTION backlog",
    "Oldest saga in NEEDS_ATTENTION",
    "Sagas past deadline",
    "Compensation latency",
    "Audit and anchor write latency",
    "Audit and anchor write failures",
    "Worker slots in use",
    "Schedule-to-start latency p99",
    "Task-queue pollers",
    "Ledger invariant violations",
    "Sagas waiting on infrastructure",
    "Killed sagas awaiting recovery",
    "Open reconciliation breaks",
]
OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def panels() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = dashboard()["panels"]
    return found


def variables() -> dict[str, dict[str, Any]]:
    return {var["name"]: var for var in dashboard()["templating"]["list"]}


def test_the_dashboard_is_a_grafana_dashboard_with_a_datasource_variable() -> None:
    model = dashboard()
    assert model["schemaVersion"] >= 39
    assert model["uid"] == "fundsaga"
    assert variables()["datasource"]["type"] == "datasource"
    assert variables()["datasource"]["query"] == "prometheus"


@pytest.mark.parametrize(
    ("name", "metric"),
    [
        ("saga_type", "fundsaga_sagas_started_total"),
        ("task_queue", f"temporal_worker_task_slots_used{{{FUNDSAGA_WORKERS}}}"),
    ],
)
def test_saga_type_and_task_queue_are_label_values(name: str, metric: str) -> None:
    var = variables()[name]
    assert var["definition"] == f"label_values({metric}, {name})"
    assert var["datasource"] == DATASOURCE
    assert var["includeAll"]


def test_every_required_panel_is_there() -> None:
    titles = [panel["title"] for panel in panels()]
    assert [title for title in REQUIRED if title not in titles] == []
    assert len(titles) == len(set(titles))


def test_every_panel_has_a_description_a_place_and_the_datasource_variable() -> None:
    ids = [panel["id"] for panel in panels()]
    assert len(ids) == len(set(ids))
    for panel in panels():
        assert panel["description"].strip(), panel["title"]
        assert set(panel["gridPos"]) == {"h", "w", "x", "y"}, panel["title"]
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24, panel["title"]
        assert panel["datasource"] == DATASOURCE, panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip(), panel["title"]
            assert target["datasource"] == DATASOURCE, panel["title"]


BY_SAGA_TYPE = [
    "fundsaga_sagas_finished_total",
    "fundsaga_sagas_started_total",
    "fundsaga_step_retries_total",
    "fundsaga_step_attempts_total",
    "fundsaga_compensations_total",
    "fundsaga_compensation_duration_seconds_bucket",
    "fundsaga_sagas_needing_attention",
    "fundsaga_oldest_needing_attention_age_seconds",
    "fundsaga_sagas_past_deadline",
    "fundsaga_sagas_waiting_on_infrastructure",
    "fundsaga_sagas_killed",
]
BY_TASK_QUEUE = [
    "temporal_worker_task_slots_used",
    "temporal_workflow_task_schedule_to_start_latency_bucket",
    "temporal_activity_schedule_to_start_latency_bucket",
    "fundsaga_task_queue_pollers",
]


@pytest.mark.parametrize(
    ("metric", "label"),
    [(m, "saga_type") for m in BY_SAGA_TYPE] + [(m, "task_queue") for m in BY_TASK_QUEUE],
)
def test_the_variables_filter_every_query_of_their_label(metric: str, label: str) -> None:
    selectors = re.findall(rf"\b{metric}\b(\{{[^}}]*\}})?", "\n".join(dashboard_exprs()))
    assert selectors
    assert all(f'{label}=~"${label}"' in found for found in selectors), selectors


def test_temporal_metrics_are_read_from_fundsaga_workers_only() -> None:
    selectors = re.findall(r"\btemporal_\w+(\{[^}]*\})?", "\n".join(dashboard_exprs()))
    assert selectors
    assert all(FUNDSAGA_WORKERS in found for found in selectors), selectors
    assert FUNDSAGA_WORKERS in variables()["task_queue"]["definition"]


def promtool(*args: str | Path) -> None:
    done = subprocess.run(
        [binary("promtool"), *map(str, args)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_collector_age_keeps_growing_while_the_collector_is_down(tmp_path: Path) -> None:
    """The collector succeeds every minute up to minute 3, then its target is down: its
    timestamp has no sample since, and at minute 20 the panel reads 17 minutes."""
    (expr,) = [
        target["expr"]
        for panel in panels()
        if panel["title"] == "Collector last success"
        for target in panel["targets"]
    ]
    rules = tmp_path / "age.yml"
    rule = {"record": "collector_age", "expr": as_promql(expr)}
    rules.write_text(yaml.safe_dump({"groups": [{"name": "age", "rules": [rule]}]}))
    series = {
        "series": "fundsaga_collector_last_success_timestamp_seconds",
        "values": "0+60x3 _x30",
    }
    check = {"expr": "collector_age", "eval_time": "20m"}
    case = {
        "interval": "1m",
        "input_series": [series],
        "promql_expr_test": [
            {**check, "exp_samples": [{"labels": "collector_age", "value": 1020}]}
        ],
    }
    tests = tmp_path / "age.test.yml"
    tests.write_text(yaml.safe_dump({"rule_files": [str(rules)], "tests": [case]}))
    promtool("test", "rules", tests)


def as_promql(expr: str) -> str:
    """The query as Prometheus receives it from Grafana: variables replaced."""
    expr = expr.replace("$__rate_interval", "1m")
    return re.sub(r"\$\w+", ".*", expr)


def test_prometheus_parses_every_query(tmp_path: Path) -> None:
    rules = [
        {"record": f"dashboard:query_{n}", "expr": as_promql(expr)}
        for n, expr in enumerate(dashboard_exprs())
    ]
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    promtool("check", "rules", path)


@pytest.mark.parametrize("title", REQUIRED)
def test_the_operations_guide_lists_every_panel(title: str) -> None:
    assert f"| {title} |" in OPERATIONS.read_text()
