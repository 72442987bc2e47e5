"""The activity-side cost measure: each transfer step commits once, snapshot included."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.ledger import Ledger
from tooling.bench import measure_step_cost
from tooling.bench._cli import build_parser, run


def test_each_step_of_a_transfer_commits_once_with_its_snapshot(tmp_path: Path) -> None:
    cost = measure_step_cost(tmp_path, 3)

    assert cost.transfers == 3
    assert cost.commits_per_transfer == 5.0
    assert cost.cpu_ms_per_transfer > 0
    ledger = Ledger.from_url(f"sqlite:///{tmp_path / 'ledger.db'}")
    try:
        sagas = {hold.saga_id for hold in ledger.holds()}
        assert len(sagas) == 3 + 20  # the measured transfers and the warm-up
        for saga_id in sagas:
            assert [s.step_name for s in ledger.snapshots(saga_id)] == [
                "reserve",
                "capture",
                "credit",
                "settle",
                "release",
            ]
            assert ledger.net_effect(saga_id) != {}
        assert ledger.check_invariants() == []
    finally:
        ledger.close_connections()


def test_the_bench_command_reports_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--step-cost", "2", "--database", "sqlite", "--output-dir", str(tmp_path)]
    code = run(build_parser().parse_args(argv))

    assert code == 0
    assert capsys.readouterr().out.startswith("[sqlite] step cost: 2 transfers")


@pytest.mark.postgres
def test_it_measures_a_postgresql_ledger_as_the_worker_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cost = measure_step_cost(tmp_path, 2, "postgresql")

    assert cost.transfers == 2
    assert cost.commits_per_transfer == 5.0
    argv = ["--step-cost", "2", "--output-dir", str(tmp_path)]
    assert run(build_parser().parse_args(argv)) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("]")[0] for line in printed] == ["[sqlite", "[postgresql"]
