"""The targets block from given figures: each target's status, without running anything."""

from __future__ import annotations

from tooling.bench import Latency, ScenarioResult, TargetStatus
from tooling.bench._targets import Measured, targets

RATIOS = {
    "ENGINE/NAIVE tput@16": 1.02,
    "ENGINE-LOCAL/BARE-LOCAL tput@16": 0.85,
    "ENGINE-LOCAL/BARE-LOCAL p50@1": 1.1,
    "ENGINE/ENGINE-NOSIGN tput@16": 0.97,
}


def _local(tput: float, p50: float, name: str = "ENGINE-LOCAL") -> ScenarioResult:
    return ScenarioResult(
        name=name,
        tput={"16": tput},
        latency_c1=Latency(n=3, p50_ms=p50, p95_ms=p50, p99_ms=p50, mean_ms=p50),
    )


def _statuses(*scenarios: ScenarioResult) -> dict[str, TargetStatus]:
    measured = Measured(
        ratios={"sqlite": RATIOS},
        scenarios=scenarios,
        concurrencies=(16,),
        soaks=[],
        scaling=[],
        elapsed_s=1500.0,
    )
    return {t.name: t.status for t in targets(measured)}


def test_each_target_reads_met_not_met_or_not_measured() -> None:
    found = _statuses(_local(20.0, 100.0))
    assert found["1. ENGINE/NAIVE tput@16 [sqlite]"] is TargetStatus.MET
    assert found["1. cost: ENGINE/ENGINE-NOSIGN tput@16 [sqlite]"] is TargetStatus.REPORTED
    assert found["1. cost: ENGINE/ENGINE-NOMETRICS tput@16 [sqlite]"] is TargetStatus.NOT_MEASURED
    assert found["1. cost of the snapshots [sqlite]"] is TargetStatus.NOT_SWITCHABLE
    assert found["2. ENGINE-LOCAL/BARE-LOCAL tput@16 [sqlite]"] is TargetStatus.NOT_MET
    assert found["2. ENGINE-LOCAL/BARE-LOCAL p50@1 [sqlite]"] is TargetStatus.MET
    assert found["3. ENGINE-LOCAL/DBOS tput@16 [sqlite]"] is TargetStatus.NOT_MEASURED
    assert found["4. every scenario on PostgreSQL, no failure"] is TargetStatus.NOT_MEASURED
    assert found["6. soak ENGINE-LOCAL: RSS growth MB"] is TargetStatus.NOT_MEASURED
    assert found["7. run time s"] is TargetStatus.NOT_MET


def test_dbos_targets_are_measured_when_dbos_ran() -> None:
    found = _statuses(_local(20.0, 100.0), _local(40.0, 25.0, name="DBOS"))
    assert found["3. ENGINE-LOCAL/DBOS tput@16 [sqlite]"] is TargetStatus.NOT_MET
    assert found["3. ENGINE-LOCAL/DBOS p50@1 [sqlite]"] is TargetStatus.NOT_MET


def test_each_dbos_target_says_its_figures_are_not_interleaved() -> None:
    measured = Measured(
        ratios={"sqlite": RATIOS},
        scenarios=[_local(20.0, 100.0), _local(40.0, 25.0, name="DBOS")],
        concurrencies=(16,),
        soaks=[],
        scaling=[],
        elapsed_s=1500.0,
    )
    against_dbos = [t for t in targets(measured) if t.name.startswith("3. ")]
    assert [t.name for t in against_dbos] == [
        "3. ENGINE-LOCAL/DBOS tput@16 [sqlite]",
        "3. ENGINE-LOCAL/DBOS p50@1 [sqlite]",
    ]
    assert all("not interleaved" in t.note for t in against_dbos)


def test_the_time_target_leaves_out_the_soaks_and_the_scaling_run_of_a_full_run() -> None:
    full = Measured(
        ratios={"sqlite": RATIOS},
        scenarios=[],
        concurrencies=(16,),
        soaks=[],
        scaling=[],
        elapsed_s=2200.0,
        full_extras_s=1300.0,
    )

    (run_time,) = [t for t in targets(full) if t.name == "7. run time s"]

    assert run_time.value == 900.0
    assert run_time.status is TargetStatus.MET
    assert "1300 s more, not counted" in run_time.note
