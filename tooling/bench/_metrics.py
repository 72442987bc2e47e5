"""Percentiles, medians and ratios over measured samples."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from tooling.bench._results import Latency


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linearly interpolated between closest ranks."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency(seconds: Sequence[float]) -> Latency:
    ms = [s * 1000 for s in seconds]
    return Latency(
        n=len(ms),
        p50_ms=round(percentile(ms, 50), 2),
        p95_ms=round(percentile(ms, 95), 2),
        p99_ms=round(percentile(ms, 99), 2),
        mean_ms=round(statistics.fmean(ms), 2),
    )


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 3)


def paired_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """Median of block-by-block ratios: blocks of the same round ran side by side."""
    pairs = [n / d for n, d in zip(numerators, denominators, strict=True) if d]
    return round(median(pairs), 3)
