"""The deploy files (`deploy/prometheus/*.yml`, `deploy/grafana/fundsaga.json`) and the metric
names their PromQL expressions read, exactly as written (`..._bucket` included), so that a test
can look each one up in a real scrape."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
# Words of PromQL that are not metrics: aggregation modifiers, binary operators, `offset`.
KEYWORDS = frozenset(
    {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset"}
    | {"and", "or", "unless", "atan2", "inf", "nan"}
)
# Series Prometheus makes itself for each target, never in a scrape; left out of the names.
SYNTHETIC = frozenset({"up", "scrape_duration_seconds", "scrape_samples_scraped"})
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
# Label lists of `by (...)`, `on (...)` and the like name labels, never metrics.
_LABEL_LIST = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_MATCHERS = re.compile(r"\{[^}]*\}")
_RANGE = re.compile(r"\[[^\]]*\]")
# A name not inside a word or a number (`10m`), and not called as a function.
_NAME = re.compile(r"(?<![\w:.$])([A-Za-z_:][\w:]*)(?!\w|\s*\()")
_LABEL_VALUES = re.compile(r"label_values\(\s*([A-Za-z_:][\w:]*)\s*,")


def alert_rule_files() -> list[Path]:
    """The rule files Prometheus loads (not their promtool tests, nor Prometheus's own
    configuration, `prometheus.yml`, which docker-compose.yml mounts)."""
    files = (DEPLOY / "prometheus").glob("*.yml")
    return sorted(
        path
        for path in files
        if not path.name.endswith(".test.yml") and path.name != "prometheus.yml"
    )


def dashboard_file() -> Path:
    return DEPLOY / "grafana" / "fundsaga.json"


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects, as written (`..._bucket` stays), but for
    Prometheus's own per-target series (`up`); Grafana's `$variables` are ignored."""
    bare = _STRING.sub('""', expr)
    for pattern in (_LABEL_LIST, _MATCHERS, _RANGE):
        bare = pattern.sub(" ", bare)
    return {name for name in _NAME.findall(bare) if name not in KEYWORDS | SYNTHETIC}


def rules() -> list[dict[str, Any]]:
    """Every rule of every group of every rule file."""
    found: list[dict[str, Any]] = []
    for path in alert_rule_files():
        for group in yaml.safe_load(path.read_text())["groups"]:
            found.extend(group["rules"])
    return found


def metric_names_in_rules() -> set[str]:
    return set().union(*(metric_names(rule["expr"]) for rule in rules()))


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(dashboard_file().read_text())
    return loaded


def dashboard_exprs() -> list[str]:
    return [target["expr"] for panel in dashboard()["panels"] for target in panel["targets"]]


def metric_names_in_dashboard() -> set[str]:
    """Names in the panels' queries and in the template variables' `label_values(...)`."""
    queries = [
        var["definition"] for var in dashboard()["templating"]["list"] if "definition" in var
    ]
    variables = {name for query in queries for name in _LABEL_VALUES.findall(query)}
    return variables.union(*(metric_names(expr) for expr in dashboard_exprs()))
