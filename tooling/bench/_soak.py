"""The memory soak: many transfers through one worker, its RSS sampled along the way."""

from __future__ import annotations

import time

from tooling.bench._load import Probe, RunOne, closed_loop
from tooling.bench._procstat import sample
from tooling.bench._results import Soak
from tooling.bench._session import progress

SOAK_CONCURRENCY = 16
CHUNKS = 20
WARMUP_CHUNKS = 2


async def soak(probe: Probe, run_one: RunOne, transfers: int, scenario: str) -> Soak:
    """Run `transfers` sagas of `scenario`; growth is measured after the first chunks."""
    started = time.perf_counter()
    chunk = max(transfers // CHUNKS, 1)
    done = failures = 0
    samples: list[tuple[int, float]] = [(0, round(sample(probe.worker_pid).rss_mb, 1))]
    while done < transfers:
        size = min(chunk, transfers - done)
        block = await closed_loop(probe, run_one, size, SOAK_CONCURRENCY)
        done += size
        failures += block.failures
        samples.append((done, round(sample(probe.worker_pid).rss_mb, 1)))
        progress(f"soak {scenario} {done}/{transfers}: worker RSS {samples[-1][1]} MB")
    warm = samples[min(WARMUP_CHUNKS, len(samples) - 1)]
    after = [rss for _, rss in samples[samples.index(warm) :]]
    return Soak(
        scenario=scenario,
        transfers=transfers,
        warmup=warm[0],
        rss_after_warmup_mb=warm[1],
        rss_end_mb=samples[-1][1],
        rss_max_after_warmup_mb=max(after),
        growth_mb=round(max(after) - warm[1], 1),
        samples=samples,
        failures=failures,
        elapsed_s=round(time.perf_counter() - started, 1),
    )
