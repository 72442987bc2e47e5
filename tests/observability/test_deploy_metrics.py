"""The metric names read from the deploy files are exactly those their queries select: what a
scrape must show, with no PromQL function, keyword or label name among them."""

from __future__ import annotations

import pytest

from tests.observability.deploy_metrics import (
    alert_rule_files,
    dashboard_file,
    metric_names,
    metric_names_in_dashboard,
    metric_names_in_rules,
)

NOT_METRICS = {"rate", "increase", "sum", "max", "by", "le", "histogram_quantile", "absent"}
NOT_METRICS |= {"time", "and", "saga_type", "task_queue", "kind", "result", "status", "job"}


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ('up{job="fundsaga-worker"} == 0', set()),
        (
            "absent(fundsaga_collector_last_success_timestamp_seconds)",
            {"fundsaga_collector_last_success_timestamp_seconds"},
        ),
        ("time() - max(a_seconds) > 300", {"a_seconds"}),
        (
            'histogram_quantile(0.99, sum by (task_queue, le) (rate(h_bucket{x="a b{c}"}[5m])))',
            {"h_bucket"},
        ),
        (
            "sum by (k) (rate(a[15m] offset 1d)) > 2 * on (k) group_left (j) b unless c",
            {"a", "b", "c"},
        ),
        ('sum(increase(a_total{kind=~"$saga_type"}[$__rate_interval])) by (le)', {"a_total"}),
        ("x_total\n  and\ny:recorded", {"x_total", "y:recorded"}),
    ],
)
def test_metric_names_are_the_selected_series_as_written(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


def test_the_deploy_files_exist() -> None:
    assert [path.name for path in alert_rule_files()] == ["alerts.yml"]
    assert dashboard_file().is_file()


def test_the_rules_read_the_engine_the_collector_and_the_sdk() -> None:
    names = metric_names_in_rules()
    assert {
        "fundsaga_sagas_needing_attention",
        "fundsaga_sagas_finished_total",
        "fundsaga_ledger_invariant_violations",
        "fundsaga_task_queue_pollers",
        "temporal_workflow_task_schedule_to_start_latency_bucket",
        "temporal_activity_schedule_to_start_latency_bucket",
    } <= names
    assert not names & NOT_METRICS


def test_the_dashboard_reads_histogram_buckets_and_its_variables_metrics() -> None:
    names = metric_names_in_dashboard()
    assert {
        "fundsaga_sagas_started_total",
        "fundsaga_step_retries_total",
        "fundsaga_compensation_duration_seconds_bucket",
        "fundsaga_audit_write_duration_seconds_bucket",
        "temporal_worker_task_slots_used",
    } <= names
    assert not names & NOT_METRICS
    assert all(name.startswith(("fundsaga_", "temporal_")) for name in names)
