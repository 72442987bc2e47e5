from __future__ import annotations

import re
from pathlib import Path

import pytest

from tooling.bench.cpu_split import EVENT_LOOP, PYTHON_THREADS, SDK_CORE, group_of, main


def test_a_thread_is_grouped_by_who_made_it() -> None:
    assert group_of(100, 100, "python", "python") == EVENT_LOOP
    assert group_of(100, 101, "tokio-rt-worker", "python") == SDK_CORE
    assert group_of(100, 102, "python", "python") == PYTHON_THREADS
    assert group_of(100, 103, "grpc_global_tim", "python") == "other:grpc_global_tim"


def test_the_split_runs_each_scenario_and_accounts_for_its_worker_cpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--scenarios", "BARE-LOCAL,ENGINE", "--sagas", "30", "--concurrency", "4"]
    assert main([*argv, "--rounds", "1", "--output-dir", str(tmp_path)]) == 0

    lines = [line for line in capsys.readouterr().out.splitlines() if "ms/saga" in line]
    assert [line.split()[0] for line in lines] == ["BARE-LOCAL", "ENGINE"]
    for line in lines:
        head, _, groups = line.partition("ms/saga:")
        total = float(head.split("CPU")[1].split()[0])
        spent = {
            name: float(ms) for name, ms in re.findall(r"([A-Za-z][^0-9]*?) (-?[0-9.]+)", groups)
        }
        assert list(spent)[:3] == [EVENT_LOOP, PYTHON_THREADS, SDK_CORE]
        assert spent[EVENT_LOOP] > 0
        assert spent[PYTHON_THREADS] > 0  # the activities, the workflow activations
        assert sum(spent.values()) == pytest.approx(total, abs=0.5)


def test_an_unknown_scenario_is_refused_by_name() -> None:
    with pytest.raises(SystemExit, match=r"--scenarios: choose from .*got 'NOPE'"):
        main(["--scenarios", "NOPE"])
