"""The conditions of a run, written beside its figures."""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import asdict
from pathlib import Path

from sagas.servers import DEV_SERVER_DYNAMIC_CONFIG, temporal_cli_path
from tooling.bench._codec import describe_converter
from tooling.bench._config import BenchConfig

Conditions = dict[str, str | int | float | bool]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _temporal_version() -> str:
    done = subprocess.run(
        [temporal_cli_path(), "--version"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def _plain(value: object) -> str | int | float | bool:
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value) or "none"
    return str(value)


def conditions(config: BenchConfig, *, peak_resettable: bool) -> Conditions:
    knobs = {f"knob.{k}": _plain(v) for k, v in asdict(config.knobs).items() if v is not None}
    return {
        "cpus": os.cpu_count() or 0,
        "cpu_model": _cpu_model(),
        "load_average_1m_at_start": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "temporal": _temporal_version(),
        "server_mode": "embedded dev server, in-memory persistence, UI off",
        "server_dynamic_config": ",".join(f"{k}={v}" for k, v in DEV_SERVER_DYNAMIC_CONFIG),
        "ledger": "per session: SQLite file (WAL) or PostgreSQL database, fresh, as worker role",
        "databases": ",".join(config.databases),
        "add_ons": "ledger signer, audit anchors every 100 records, Prometheus metrics runtime",
        "worker": "one child process running every scenario's Temporal worker",
        "other_load": "machine shared (2 cores) with other work: see load_average_1m_at_start",
        "concurrencies": ",".join(str(c) for c in config.concurrencies),
        "rounds": config.rounds,
        "block": config.block,
        "latency_samples": config.latency_samples,
        "open_loop_samples": config.open_loop_samples,
        "data_converter": describe_converter(config.knobs),
        "engine_start": "FundsagaClient.start (one start; describe only if the id exists)",
        "worker_peak_reset_per_block": peak_resettable,
        **knobs,
    }
