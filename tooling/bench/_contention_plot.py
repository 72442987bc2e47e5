"""The contention shapes' panel: accepted and applied rates per shape and database."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from tooling.bench._results import Contention

CONTENTION_PNG = "bench-contention.png"


def write_contention_plot(shapes: list[Contention], directory: Path, label: str) -> str | None:
    """Bars of accepted and applied sagas/s for each shape, one panel per database, the lost
    count over each; None when no shape ran (the caller checks for matplotlib)."""
    if not shapes:
        return None
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    pyplot: Any = importlib.import_module("matplotlib.pyplot")
    databases = list(dict.fromkeys(c.database for c in shapes))
    figure, _ = pyplot.subplots(1, len(databases), figsize=(5.5 * len(databases), 4))
    for ax, database in zip(figure.axes, databases, strict=True):
        _panel(ax, [c for c in shapes if c.database == database], database)
    figure.suptitle(f"fundsaga bench ({label}): contention shapes, transfer sagas")
    figure.tight_layout()
    figure.savefig(directory / CONTENTION_PNG, dpi=110)
    pyplot.close(figure)
    return CONTENTION_PNG


def _panel(ax: Any, shapes: list[Contention], database: str) -> None:
    xs = range(len(shapes))
    width = 0.38
    ax.bar([x - width / 2 for x in xs], [c.accepted_per_s for c in shapes], width, label="accepted")
    applied = ax.bar(
        [x + width / 2 for x in xs], [c.applied_per_s for c in shapes], width, label="applied"
    )
    ax.bar_label(applied, labels=[f"lost {c.lost}" for c in shapes], fontsize=8)
    ax.set_xticks(list(xs), [c.shape for c in shapes])
    ax.set_yscale("log")
    ax.set_ylabel("sagas/s (log)")
    ax.set_title(f"{database}, {shapes[0].sagas} sagas per shape, {shapes[0].concurrency} lanes")
    ax.legend(loc="center")
