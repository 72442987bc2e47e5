"""The targets block from given figures: each target's status, without running anything."""

from __future__ import annotations

from tooling.bench import Contention, Latency, ScenarioResult, TargetStatus
from tooling.bench._targets import Measured, targets

RATIOS = {
    "ENGINE/NAIVE tput@16": 1.02,
    "ENGINE-LOCAL/BARE-LOCAL worker CPU": 2.4,
    "ENGINE/ENGINE-NOSIGN tput@16": 0.97,
}
WITH_DBOS = RATIOS | {"ENGINE-LOCAL/DBOS tput@16": 0.75, "ENGINE-LOCAL/DBOS p50@1": 1.9}


def _local(tput: float, p50: float, name: str = "ENGINE-LOCAL") -> ScenarioResult:
    return ScenarioResult(
        name=name,
        tput={"16": tput},
        latency_c1=Latency(n=3, p50_ms=p50, p95_ms=p50, p99_ms=p50, mean_ms=p50),
    )


def _statuses(
    *scenarios: ScenarioResult, ratios: dict[str, float] = RATIOS
) -> dict[str, TargetStatus]:
    measured = Measured(
        ratios={"sqlite": ratios},
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
    assert found["1. ENGINE-LOCAL/BARE-LOCAL worker CPU [sqlite]"] is TargetStatus.NOT_MET
    assert found["1. cost: ENGINE/ENGINE-NOSIGN tput@16 [sqlite]"] is TargetStatus.REPORTED
    assert found["1. cost: ENGINE/ENGINE-NOMETRICS tput@16 [sqlite]"] is TargetStatus.NOT_MEASURED
    assert found["1. ENGINE-LOCAL/DBOS tput@16 [sqlite]"] is TargetStatus.NOT_MEASURED
    assert found["1. every scenario ran, no failure [sqlite]"] is TargetStatus.MET
    assert found["3. contention shapes"] is TargetStatus.NOT_MEASURED
    assert found["5. soak ENGINE-LOCAL: RSS growth MB"] is TargetStatus.NOT_MEASURED
    assert found["5. run time s"] is TargetStatus.NOT_MET


def test_dbos_targets_are_measured_when_dbos_ran_interleaved() -> None:
    dbos = _local(40.0, 25.0, name="DBOS")
    found = _statuses(_local(20.0, 100.0), dbos, ratios=WITH_DBOS)
    assert found["1. ENGINE-LOCAL/DBOS tput@16 [sqlite]"] is TargetStatus.NOT_MET
    assert found["1. ENGINE-LOCAL/DBOS p50@1 [sqlite]"] is TargetStatus.MET


def test_a_dbos_target_not_measured_says_why() -> None:
    absent = ScenarioResult(name="DBOS", status="not installed (pip install 'fundsaga[bench]')")
    measured = Measured(
        ratios={"sqlite": RATIOS},
        scenarios=[_local(20.0, 100.0), absent],
        concurrencies=(16, 64),
        soaks=[],
        scaling=[],
        elapsed_s=600.0,
    )
    against_dbos = [t for t in targets(measured) if "/DBOS" in t.name]
    assert [t.name for t in against_dbos] == [
        "1. ENGINE-LOCAL/DBOS tput@16 [sqlite]",
        "1. ENGINE-LOCAL/DBOS tput@64 [sqlite]",
        "1. ENGINE-LOCAL/DBOS p50@1 [sqlite]",
    ]
    assert all(t.status is TargetStatus.NOT_MEASURED for t in against_dbos)
    assert all("DBOS not installed" in t.note for t in against_dbos)


def test_a_failed_saga_fails_the_no_failure_line() -> None:
    failed = _local(20.0, 100.0)
    failed.failures = 1
    found = _statuses(failed)
    assert found["1. every scenario ran, no failure [sqlite]"] is TargetStatus.NOT_MET


def _shape(lost: int, findings: list[str]) -> Contention:
    latency = Latency(n=10, p50_ms=50.0, p95_ms=60.0, p99_ms=70.0, mean_ms=52.0)
    return Contention(
        shape="hot-pair",
        database="sqlite",
        sagas=10,
        concurrency=4,
        accepted_per_s=100.0,
        applied_per_s=12.5,
        latency=latency,
        statuses={"COMPLETED": 10 - lost},
        journal_applied=10 - lost,
        busiest_account="bench-src-00",
        busiest_sagas=10,
        invariant_findings=findings,
        elapsed_s=1.0,
    )


def test_a_contention_shape_is_met_only_when_nothing_is_lost_and_the_ledger_verifies() -> None:
    def status(shape: Contention) -> TargetStatus:
        measured = Measured(
            ratios={},
            scenarios=[],
            concurrencies=(16,),
            soaks=[],
            scaling=[],
            elapsed_s=1.0,
            contention=[shape],
        )
        (line,) = [t for t in targets(measured) if t.name.startswith("3. ")]
        assert "applied 12.5/s" in line.note
        return line.status

    assert status(_shape(0, [])) is TargetStatus.MET
    assert status(_shape(1, [])) is TargetStatus.NOT_MET
    assert status(_shape(0, ["account bench-src-00: balance differs"])) is TargetStatus.NOT_MET


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

    (run_time,) = [t for t in targets(full) if t.name == "5. run time s"]

    assert run_time.value == 900.0
    assert run_time.status is TargetStatus.MET
    assert "1300 s more, not counted" in run_time.note
