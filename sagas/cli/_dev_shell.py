"""What a second shell needs to reach the stack `fundsaga dev` runs, and how long the stack
took from the moment `make run` was typed."""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

from sagas.foundations import DEFAULT_HOME, Settings, write_new_file

DEV_ENV_FILE = DEFAULT_HOME / "dev.env"
STARTED_AT_ENV = "FUNDSAGA_RUN_STARTED_AT"
"""Seconds since the epoch when `make run` started (its Makefile sets it); unset: not known."""


def second_shell_settings(settings: Settings, port: int) -> dict[str, str]:
    """The settings a command in another shell must share with this stack."""
    return {
        "TEMPORAL_ADDRESS": f"127.0.0.1:{port}",
        "TEMPORAL_NAMESPACE": settings.temporal_namespace,
        "FUNDSAGA_TASK_QUEUE": settings.task_queue,
        "FUNDSAGA_DATABASE_URL": settings.database_url,
    }


def write_dev_env(values: dict[str, str], path: Path = DEV_ENV_FILE) -> Path:
    """`export NAME=value` lines a shell sources (`. .fundsaga/dev.env`), replacing an older
    run's."""
    text = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in values.items())
    path.unlink(missing_ok=True)
    write_new_file(path, text.encode(), 0o600)
    return path


def since_run_started(now: float | None = None) -> float | None:
    """Seconds since `make run` started, None when it did not say."""
    raw = os.environ.get(STARTED_AT_ENV, "")
    try:
        started = float(raw)
    except ValueError:
        return None
    return (time.time() if now is None else now) - started
