from __future__ import annotations

import pytest

from tooling.bench.cli_start import COMMANDS, main


def test_the_start_bench_times_each_command_against_a_bare_interpreter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--runs", "1"]) == 0

    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["command", "median", "ms", "x", "bare"]
    assert [row[:24].strip() for row in rows] == list(COMMANDS)
    assert rows[0].split()[-1] == "1.0"
