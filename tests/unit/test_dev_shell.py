from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from sagas.cli._dev_shell import STARTED_AT_ENV, since_run_started, write_dev_env


def test_a_second_shell_that_sources_the_file_has_the_stack_s_settings(tmp_path: Path) -> None:
    path = write_dev_env(
        {"TEMPORAL_ADDRESS": "127.0.0.1:17233", "FUNDSAGA_DATABASE_URL": "sqlite:///a b.db"},
        tmp_path / "dev.env",
    )

    shell = subprocess.run(
        ["bash", "-c", f'. {path} && echo "$TEMPORAL_ADDRESS|$FUNDSAGA_DATABASE_URL"'],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ["PATH"]},
    )
    assert shell.stdout.strip() == "127.0.0.1:17233|sqlite:///a b.db"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_later_run_replaces_the_file(tmp_path: Path) -> None:
    write_dev_env({"TEMPORAL_ADDRESS": "127.0.0.1:7233"}, tmp_path / "dev.env")

    path = write_dev_env({"TEMPORAL_ADDRESS": "127.0.0.1:17233"}, tmp_path / "dev.env")

    assert path.read_text() == "export TEMPORAL_ADDRESS=127.0.0.1:17233\n"


def test_the_time_since_make_run_counts_from_the_makefile_s_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(STARTED_AT_ENV, "1000")
    assert since_run_started(now=1041.5) == 41.5
    monkeypatch.setenv(STARTED_AT_ENV, "")
    assert since_run_started(now=1041.5) is None
