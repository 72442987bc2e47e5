"""The latency plot, drawn only where matplotlib is installed."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

from tooling.bench._results import Latency, Report

PNG_NAME = "bench-latency.png"
NO_MATPLOTLIB = "matplotlib is not installed: no PNG (pip install 'fundsaga[bench]')"


def write_plot(report: Report, directory: Path) -> str | None:
    """Bars of p50/p95/p99 per scenario, unloaded and at half load; None without matplotlib."""
    if importlib.util.find_spec("matplotlib") is None:
        report.notes.append(NO_MATPLOTLIB)
        return None
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    pyplot: Any = importlib.import_module("matplotlib.pyplot")
    figure, axes = pyplot.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, phase in zip(axes, ("latency_c1", "latency_half"), strict=True):
        _bars(ax, report, phase)
    figure.suptitle(f"fundsaga bench ({report.label}): start-to-result latency")
    figure.tight_layout()
    figure.savefig(directory / PNG_NAME, dpi=110)
    pyplot.close(figure)
    return PNG_NAME


def _bars(ax: Any, report: Report, phase: str) -> None:
    names: list[str] = []
    values: list[Latency] = []
    for result in report.scenarios:
        latency = getattr(result, phase)
        if isinstance(latency, Latency):
            names.append(f"{result.name} {result.database}")
            values.append(latency)
    width = 0.27
    for i, (label, pick) in enumerate((("p50", "p50_ms"), ("p95", "p95_ms"), ("p99", "p99_ms"))):
        xs = [x + (i - 1) * width for x in range(len(names))]
        ax.bar(xs, [getattr(v, pick) for v in values], width, label=label)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_title("concurrency 1" if phase == "latency_c1" else "open loop at half max throughput")
    ax.set_ylabel("ms")
    ax.legend()
