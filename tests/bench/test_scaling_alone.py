"""`--only scaling`: the process-scaling run alone, its figures and its target line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooling.bench import BenchConfig, TargetStatus, run_bench, table

pytestmark = pytest.mark.long


async def test_the_scaling_run_alone_reports_cpu_per_saga_of_each_process(tmp_path: Path) -> None:
    out = tmp_path / "not-made-yet"
    config = BenchConfig(output_dir=out, only="scaling", scaling=(1, 2)).smoke()

    report = await run_bench(config)

    assert [p.processes for p in report.scaling] == [1, 2]
    assert all(p.failures == 0 and p.sagas > 0 for p in report.scaling)
    assert [len(p.worker_cpu_ms_per_saga) for p in report.scaling] == [1, 2]
    assert report.scenarios == []
    (target,) = report.targets
    assert target.status is TargetStatus.REPORTED
    assert "2 proc" in target.note
    assert "scaling [postgresql]: 2 worker processes" in table(report)
    assert (out / "worker.log").exists()
