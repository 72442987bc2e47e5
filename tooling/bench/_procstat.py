"""CPU and memory of another process, read from /proc (Linux)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class ProcSample:
    cpu_s: float
    """User plus system CPU seconds so far."""
    rss_mb: float
    hwm_mb: float
    """Peak resident set size since start or since the last reset_peak."""


def sample(pid: int) -> ProcSample:
    stat = Path(f"/proc/{pid}/stat").read_text()
    cpu_s = _cpu_ticks(stat) / TICKS_PER_S
    status = _status(pid)
    return ProcSample(cpu_s=cpu_s, rss_mb=status["VmRSS"], hwm_mb=status["VmHWM"])


def thread_cpu_ticks(pid: int) -> dict[tuple[int, str], int]:
    """User plus system CPU ticks of each live thread of `pid`, by (thread id, thread name)."""
    ticks: dict[tuple[int, str], int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            ticks[(int(task.name), name)] = _cpu_ticks((task / "stat").read_text())
        except FileNotFoundError:  # the thread ended meanwhile
            continue
    return ticks


def _cpu_ticks(stat: str) -> int:
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


def reset_peak(pid: int) -> bool:
    """Reset the process's VmHWM to its current RSS; False where the kernel refuses."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def child_pids(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found.extend(int(child) for child in children)
    return found


def process_name(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def start_ticks(pid: int) -> int:
    """When the process started, in clock ticks after boot (field 22 of /proc/<pid>/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[19])


def _status(pid: int) -> dict[str, float]:
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values
