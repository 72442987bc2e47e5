"""deploy/prometheus/alerts.yml: promtool accepts it and its unit tests pass, every alert the
operations guide lists is there, and each says how bad it is and what an operator does."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.observability.deploy_metrics import DEPLOY, alert_rule_files, rules
from tests.observability.prometheus_binaries import binary

pytestmark = pytest.mark.slow

RULES = DEPLOY / "prometheus" / "alerts.yml"
RULE_TESTS = DEPLOY / "prometheus" / "alerts.test.yml"
REQUIRED = {
    "FundsagaSagaNeedsAttention",
    "FundsagaSagaParkedTooLong",
    "FundsagaSagasPastDeadline",
    "FundsagaSagaKilled",
    "FundsagaReconciliationBreakAged",
    "FundsagaSagasWaitingOnInfrastructure",
    "FundsagaAuditWritesFailing",
    "FundsagaAnchorWritesFailing",
    "FundsagaCompensationRateHigh",
    "FundsagaStepRetriesExhausted",
    "FundsagaCompensationFailed",
    "FundsagaOperatorActionsRefused",
    "FundsagaPlainTextRefused",
    "FundsagaScheduledRunFailed",
    "FundsagaTaskQueueNoPollers",
    "FundsagaWorkerDown",
    "FundsagaWorkflowTaskScheduleToStartSlow",
    "FundsagaActivityScheduleToStartSlow",
    "FundsagaLedgerInvariantViolated",
    "FundsagaCollectorStale",
    "FundsagaCollectorLedgerFailing",
    "FundsagaCollectorAbsent",
}
OPERATIONS = DEPLOY.parent / "docs" / "operations.md"
# `increase(<selector>[<window>])`: the counters a rule counts events of.
INCREASE = re.compile(r"increase\((\w+(?:\{[^}]*\})?)\[(\w+)\]\)")


def promtool(*args: str | Path) -> None:
    done = subprocess.run(
        [binary("promtool"), *map(str, args)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"promtool {' '.join(map(str, args))}:\n{done.stdout}{done.stderr}"


def test_promtool_checks_the_rules() -> None:
    promtool("check", "rules", *alert_rule_files())


def test_the_rules_pass_their_unit_tests() -> None:
    promtool("test", "rules", RULE_TESTS)


def alerts() -> dict[str, dict[str, Any]]:
    return {rule["alert"]: rule for rule in rules() if "alert" in rule}


def test_every_required_alert_exists_and_no_other() -> None:
    assert set(alerts()) == REQUIRED


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_an_alert_says_how_bad_it_is_and_what_to_do(name: str) -> None:
    rule = alerts()[name]
    assert set(rule["labels"]) == {"severity"}
    assert rule["labels"]["severity"] in {"page", "ticket"}
    assert set(rule["annotations"]) == {"summary", "description"}
    assert all(text.strip() for text in rule["annotations"].values())
    assert "for" in rule


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_every_alert_is_tested_firing_and_silent(name: str) -> None:
    cases = [
        case
        for group in yaml.safe_load(RULE_TESTS.read_text())["tests"]
        for case in group["alert_rule_test"]
        if case["alertname"] == name
    ]
    assert any(case["exp_alerts"] == [] for case in cases)
    fired = [alert for case in cases for alert in case["exp_alerts"]]
    assert fired
    assert all(alert["exp_annotations"]["description"] for alert in fired)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_the_operations_guide_lists_every_alert(name: str) -> None:
    assert f"| `{name}` |" in OPERATIONS.read_text()


@pytest.mark.parametrize(
    "name",
    sorted(name for name, rule in alerts().items() if INCREASE.search(rule["expr"])),
)
def test_a_rule_counting_events_counts_a_series_born_in_its_window(name: str) -> None:
    """A series the worker could not export at 0 is born at its first event, which
    `increase()` reads as 0: the rule also counts it in full while it is newer than the window."""
    expr = " ".join(alerts()[name]["expr"].split())
    for selector, window in INCREASE.findall(expr):
        assert f"{selector} unless {selector} offset {window}" in expr, (name, selector)


def test_rules_on_temporal_metrics_read_only_fundsaga_workers() -> None:
    """The Temporal server's own workers export the SDK's metrics under the same names."""
    temporal = [rule for rule in alerts().values() if "temporal_" in rule["expr"]]
    assert temporal
    for rule in temporal:
        selectors = re.findall(r"temporal_\w+(\{[^}]*\})?", rule["expr"])
        assert all('job="fundsaga-worker"' in found for found in selectors), rule["alert"]
