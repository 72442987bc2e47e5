"""How long a command takes to start, against a bare interpreter on the same machine.

``python -m tooling.bench.cli_start [--runs N]`` runs each command N times, interleaved so that
a load on the machine falls on all of them alike, and prints each one's median wall time and
its ratio to ``python -c pass``: ``fundsaga --version``, ``fundsaga --help``, a command's help,
and importing the client as a service does.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

FUNDSAGA = str(Path(sys.executable).with_name("fundsaga"))
COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "fundsaga --version": [FUNDSAGA, "--version"],
    "fundsaga --help": [FUNDSAGA, "--help"],
    "fundsaga sagas list -h": [FUNDSAGA, "sagas", "list", "--help"],
    "import sagas.client": [sys.executable, "-c", "import sagas.client"],
}
BARE = "python -c pass"


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, float]:
    """Each command's median wall time in seconds over `runs` interleaved runs."""
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, argv in COMMANDS.items():
            samples[name].append(timed(argv))
    return {name: statistics.median(times) for name, times in samples.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tooling.bench.cli_start")
    parser.add_argument("--runs", type=int, default=20, help="runs of each command")
    args = parser.parse_args(argv)
    medians = measure(args.runs)
    print(f"{'command':<24}{'median ms':>10}{'x bare':>8}")
    for name, seconds in medians.items():
        print(f"{name:<24}{seconds * 1000:>10.0f}{seconds / medians[BARE]:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
