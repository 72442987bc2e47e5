"""Where the worker's CPU goes per saga, thread by thread, for each scenario of the bench.

``python -m tooling.bench.cpu_split --scenarios NAIVE,ENGINE --sagas 300 --concurrency 16``
stands up the bench's stage (dev server, a fresh ledger, one worker process with every
scenario's workers) and runs each scenario's sagas in turn, round after round, reading the CPU
of each of the worker's threads from /proc before and after. The threads fall in four groups:

- event loop: the worker's main thread (polling, payload conversion and the codec, the SDK's
  payload visitor, dispatching activity tasks);
- Python threads: the activity thread pool (the ledger's transactions) and the threads that run
  workflow activations inside the sandbox;
- SDK core: the core's Rust runtime threads (its state machines and gRPC calls);
- other: any other native thread, by name.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tooling.bench._config import DEFAULT_OUTPUT_DIR, BenchConfig
from tooling.bench._load import Probe, closed_loop
from tooling.bench._procstat import TICKS_PER_S, thread_cpu_ticks
from tooling.bench._runner import TEMPORAL_SCENARIOS
from tooling.bench._scenarios import VARIANTS, Scenario, runner
from tooling.bench._session import WARMUP_CONCURRENCY
from tooling.bench._stage import staged

EVENT_LOOP = "event loop"
PYTHON_THREADS = "Python threads"
SDK_CORE = "SDK core"
GROUPS = (EVENT_LOOP, PYTHON_THREADS, SDK_CORE)


@dataclass(frozen=True)
class Split:
    scenario: str
    sagas: int
    tput: float
    ms_per_saga: dict[str, float]
    """CPU milliseconds per saga of each thread group (GROUPS, then other threads by name)."""

    @property
    def total_ms(self) -> float:
        return sum(self.ms_per_saga.values())

    def line(self) -> str:
        groups = "  ".join(f"{name} {ms:.1f}" for name, ms in self.ms_per_saga.items())
        return f"{self.scenario:<18} {self.tput:6.1f}/s  CPU {self.total_ms:5.1f} ms/saga: {groups}"


def group_of(pid: int, tid: int, name: str, python_name: str) -> str:
    """Python threads keep the process's name (Python 3.11 names no OS thread); the core's
    runtime names its threads `tokio-*`."""
    if tid == pid:
        return EVENT_LOOP
    if name.startswith("tokio"):
        return SDK_CORE
    if name == python_name:
        return PYTHON_THREADS
    return f"other:{name}"


def grouped_ms(pid: int, before: dict[tuple[int, str], int], sagas: int) -> dict[str, float]:
    after = thread_cpu_ticks(pid)
    python_name = next(name for tid, name in after if tid == pid)
    ticks: Counter[str] = Counter(dict.fromkeys(GROUPS, 0))
    for (tid, name), spent in after.items():
        ticks[group_of(pid, tid, name, python_name)] += spent - before.get((tid, name), 0)
    return {group: 1000 * spent / TICKS_PER_S / sagas for group, spent in ticks.items()}


async def measure(
    scenarios: Sequence[Scenario], sagas: int, concurrency: int, rounds: int, config: BenchConfig
) -> list[Split]:
    splits: list[Split] = []
    async with staged(config, config.databases[0], variants=False) as stage:
        pid = stage.worker_pids[0]
        probe = Probe(pid, None)
        run = {s: runner(s, stage.env.client, stage.queues) for s in scenarios}
        for scenario in scenarios:
            await closed_loop(probe, run[scenario], config.warmup, WARMUP_CONCURRENCY)
        for _ in range(rounds):
            for scenario in scenarios:
                before = thread_cpu_ticks(pid)
                block = await closed_loop(probe, run[scenario], sagas, concurrency)
                if block.failures:
                    raise RuntimeError(f"{block.failures} {scenario.value} sagas failed")
                ms = grouped_ms(pid, before, sagas)
                splits.append(Split(scenario.value, sagas, block.tput, ms))
                print(splits[-1].line(), flush=True)
    return splits


def _scenarios(text: str) -> list[Scenario]:
    known = {s.value: s for s in (*TEMPORAL_SCENARIOS, *VARIANTS)}
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise SystemExit(f"--scenarios: choose from {', '.join(known)}; got {text!r}")
    return [known[name] for name in chosen]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tooling.bench.cpu_split", description=__doc__)
    parser.add_argument("--scenarios", default="NAIVE,ENGINE,BARE-LOCAL,ENGINE-LOCAL")
    parser.add_argument("--sagas", type=int, default=300, help="sagas per scenario per round")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR / "cpu-split")
    args = parser.parse_args(argv)
    config = BenchConfig(
        databases=(args.database,), dbos=False, output_dir=args.output_dir, variants=False
    )
    scenarios = _scenarios(args.scenarios)
    asyncio.run(measure(scenarios, args.sagas, args.concurrency, args.rounds, config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
