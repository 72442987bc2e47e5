"""A smoke run of the benchmark at tiny sizes: every phase runs and every field is written.

No assertion here is about a time or a speed: only that the figures exist, are sane and agree.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.bench.shapes_check import SHAPES, check_shapes
from tooling.bench import BenchConfig, Report, Scenario, run_bench, table, write_outputs
from tooling.bench._metrics import paired_ratio

pytestmark = pytest.mark.long

TEMPORAL = [
    Scenario.BARE,
    Scenario.BARE_LOCAL,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.COMPENSATE,
    Scenario.NAIVE,
]
INTERLEAVED = [
    Scenario.BARE,
    Scenario.BARE_LOCAL,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.NAIVE,
]
VARIANTS = [Scenario.NOSIGN, Scenario.NOANCHOR, Scenario.NOMETRICS]
DATABASES = ["postgresql"]
"""The SQLite ledger runs every scenario in test_codec.py; here the PostgreSQL one, so that
`make test` stays short (the suite's code is the same for both)."""
STATUSES = {"met", "NOT MET", "not measured", "reported"}


@pytest.fixture(scope="module")
async def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("bench")
    config = BenchConfig(
        output_dir=out, label="smoke", soak=6, databases=tuple(DATABASES), scaling=(2,)
    ).smoke()
    report = await run_bench(config)
    write_outputs(report, out)
    data: dict[str, Any] = json.loads((out / "bench.json").read_text())
    return report, data, out


def scenario(data: dict[str, Any], name: Scenario, database: str = "postgresql") -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        s for s in data["scenarios"] if s["name"] == name.value and s["database"] == database
    ]
    assert len(found) == 1
    return found[0]


def check_latency(latency: dict[str, Any]) -> None:
    assert latency["n"] > 0
    assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["p99_ms"]
    assert latency["mean_ms"] > 0


def test_every_scenario_is_reported_once_per_database(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    rows = [(s["name"], s["database"]) for s in data["scenarios"]]
    per_database = [s.value for s in (*TEMPORAL, *VARIANTS, Scenario.DBOS)]
    assert sorted(rows) == sorted((n, db) for db in DATABASES for n in per_database)


@pytest.mark.parametrize("database", DATABASES)
@pytest.mark.parametrize("name", TEMPORAL)
def test_temporal_scenarios_have_every_figure(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario, database: str
) -> None:
    _, data, _ = smoke
    result = scenario(data, name, database)
    assert result["status"] == "ok"
    assert result["sagas"] > 0
    assert result["failures"] == 0
    assert result["tput"]
    assert all(v > 0 for v in result["tput"].values())
    assert set(result["tput_blocks"]) == set(result["tput"])
    check_latency(result["latency_c1"])
    assert 0 < result["first_task_ms"] < result["latency_c1"]["p99_ms"]
    assert isinstance(result["history_events"], float)
    assert result["history_events"] > 0
    assert isinstance(result["state_transitions"], float)
    assert result["state_transitions"] > 0
    assert result["worker_cpu_ms_per_saga"] > 0
    # The server's CPU is read in clock ticks (10 ms): a smoke block of a few cheap sagas on a
    # loaded machine can take none of them; summed over the scenarios it cannot.
    assert result["server_cpu_ms_per_saga"] >= 0
    assert result["worker_peak_rss_mb"] > 0


def test_the_server_cpu_is_measured(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    _, data, _ = smoke
    assert sum(scenario(data, name)["server_cpu_ms_per_saga"] for name in TEMPORAL) > 0


@pytest.mark.parametrize("name", VARIANTS)
def test_variants_run_at_the_first_concurrency_only(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    first = data["conditions"]["concurrencies"].split(",")[0]
    for database in DATABASES:
        result = scenario(data, name, database)
        assert result["failures"] == 0
        assert list(result["tput_blocks"]) == [first]
        assert len(result["tput_blocks"][first]) == data["conditions"]["rounds"]
        assert f"ENGINE/{name.value} tput@{first}" in data["ratios"][database]


@pytest.mark.parametrize("name", INTERLEAVED)
def test_interleaved_scenarios_ran_every_block_and_the_open_loop(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    result = scenario(data, name)
    conditions = data["conditions"]
    assert list(result["tput"]) == conditions["concurrencies"].split(",")
    assert all(len(blocks) == conditions["rounds"] for blocks in result["tput_blocks"].values())
    assert result["half_rate"] > 0
    check_latency(result["latency_half"])


def test_compensation_latency_is_measured(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    _, data, _ = smoke
    compensate = scenario(data, Scenario.COMPENSATE)
    check_latency(compensate["failure_to_compensated"])
    engine = scenario(data, Scenario.ENGINE)
    assert compensate["history_events"] > engine["history_events"]


def test_dbos_runs_interleaved_where_installed_else_says_so(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    dbos = scenario(data, Scenario.DBOS)
    targets = {t["name"]: t for t in data["targets"]}
    first = data["conditions"]["concurrencies"].split(",")[0]
    against = targets[f"1. ENGINE-LOCAL/DBOS tput@{first} [postgresql]"]
    if importlib.util.find_spec("dbos") is None:
        assert dbos["status"].startswith("not installed")
        assert against["status"] == "not measured"
        assert "not installed" in against["note"]
        return
    assert dbos["status"] == "ok"
    assert dbos["failures"] == 0
    assert dbos["server_cpu_ms_per_saga"] is None
    assert dbos["worker_cpu_ms_per_saga"] > 0
    engine_local = scenario(data, Scenario.ENGINE_LOCAL)
    for c, blocks in dbos["tput_blocks"].items():
        assert len(blocks) == len(engine_local["tput_blocks"][c]) == data["conditions"]["rounds"]
    check_latency(dbos["latency_c1"])
    check_latency(dbos["latency_half"])
    expected = paired_ratio(engine_local["tput_blocks"][first], dbos["tput_blocks"][first])
    assert against["value"] == pytest.approx(expected, rel=0.02)
    assert against["note"] == "interleaved"


ENGINES = {Scenario.ENGINE: "", Scenario.ENGINE_LOCAL: "_local"}


@pytest.mark.parametrize("name", ENGINES, ids=lambda name: name.value)
def test_ratios_are_computed_from_the_figures(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    tag = ENGINES[name]
    bare, engine = scenario(data, Scenario.BARE), scenario(data, name)
    ratios = data["ratios"]["postgresql"]
    for c in data["conditions"]["concurrencies"].split(","):
        expected = paired_ratio(engine["tput_blocks"][c], bare["tput_blocks"][c])
        # the JSON's block figures are rounded to 0.01/s: compare to 2 %
        assert ratios[f"R_tput{tag}@{c}"] == pytest.approx(expected, rel=0.02)
    events = engine["history_events"] / bare["history_events"]
    assert ratios[f"R_events{tag}"] == pytest.approx(events, abs=0.001)
    p50 = engine["latency_c1"]["p50_ms"] / bare["latency_c1"]["p50_ms"]
    assert ratios[f"R_p50{tag}"] == pytest.approx(p50, abs=0.001)


def test_every_target_is_a_line_with_its_status(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    report, data, _ = smoke
    names = [t["name"] for t in data["targets"]]
    assert {t["status"] for t in data["targets"]} <= STATUSES
    for number in range(1, 6):
        assert any(name.startswith(f"{number}. ") for name in names), number
    block = table(report).split("targets (", 1)[1].splitlines()[1:]
    for target in data["targets"]:
        assert any(
            line.strip().startswith(target["status"]) and target["name"] in line for line in block
        ), target["name"]


def test_targets_say_met_exactly_when_the_value_meets_them(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    targets = {t["name"]: t for t in data["targets"]}
    c = data["conditions"]["concurrencies"].split(",")[0]
    for database in DATABASES:
        ratios = data["ratios"][database]
        naive = targets[f"1. ENGINE/NAIVE tput@{c} [{database}]"]
        assert naive["value"] == ratios[f"ENGINE/NAIVE tput@{c}"]
        assert naive["status"] == ("met" if naive["value"] >= 1.0 else "NOT MET")
        cpu = targets[f"1. ENGINE-LOCAL/BARE-LOCAL worker CPU [{database}]"]
        assert cpu["value"] == ratios["ENGINE-LOCAL/BARE-LOCAL worker CPU"]
        assert cpu["status"] == ("met" if cpu["value"] <= 2.0 else "NOT MET")
        assert targets[f"1. every scenario ran, no failure [{database}]"]["status"] == "met"
        for shape in SHAPES:
            lost = targets[f"3. contention {shape} [{database}]: sagas lost"]
            assert lost["status"] == ("met" if lost["value"] == 0 else "NOT MET")
            assert "applied" in lost["note"]
    assert (
        targets["4. process scaling [postgresql]: tput with most processes / with 1"]["status"]
        == "reported"
    )
    soak = targets["5. soak ENGINE: RSS growth MB"]
    assert soak["status"] == "NOT MET"  # 6 transfers, not the 10,000 the target asks


def test_the_scaling_run_measures_every_worker_process(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    (point,) = data["scaling"]
    assert point["processes"] == 2
    assert point["failures"] == 0
    assert point["tput"] > 0
    assert len(point["worker_cpu_ms_per_saga"]) == 2
    assert point["server_cpu_ms_per_saga"] > 0


def test_local_steps_leave_fewer_history_events_than_activity_steps(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    local, engine = scenario(data, Scenario.ENGINE_LOCAL), scenario(data, Scenario.ENGINE)
    assert local["history_events"] < engine["history_events"]


@pytest.mark.parametrize("index", [0, 1])
def test_the_soaks_sample_the_worker_memory(
    smoke: tuple[Report, dict[str, Any], Path], index: int
) -> None:
    _, data, _ = smoke
    soak = data["soaks"][index]
    assert soak["scenario"] == ["ENGINE", "ENGINE-LOCAL"][index]
    assert soak["transfers"] == 6
    assert soak["failures"] == 0
    assert [done for done, _ in soak["samples"]][-1] == 6
    assert all(rss > 0 for _, rss in soak["samples"])
    assert soak["growth_mb"] == pytest.approx(
        soak["rss_max_after_warmup_mb"] - soak["rss_after_warmup_mb"], abs=0.11
    )


def test_conditions_table_and_plot_are_written(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    report, data, out = smoke
    conditions = data["conditions"]
    assert conditions["cpus"] > 0
    assert conditions["temporal"].startswith("temporal version")
    assert conditions["python"]
    assert conditions["knob.codec"] is False
    text = table(report)
    assert all(s.value in text for s in (*TEMPORAL, *VARIANTS, Scenario.DBOS))
    assert all(f" {db} " in text for db in DATABASES)
    assert "(payload codec off)" in text.splitlines()[0]
    if importlib.util.find_spec("matplotlib") is None:
        assert data["plot"] is None
        assert data["contention_plot"] is None
        assert any("matplotlib" in note for note in data["notes"])
    else:
        assert data["plot"] == "bench-latency.png"
        assert data["contention_plot"] == "bench-contention.png"
        for png in (data["plot"], data["contention_plot"]):
            assert (out / png).read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("database", DATABASES)
def test_every_contention_shape_closes_every_saga_in_the_journal(
    smoke: tuple[Report, dict[str, Any], Path], database: str
) -> None:
    report, data, _ = smoke
    check_shapes(data["contention"], database)
    assert data["contention_s"] > 0
    text = table(report)
    assert "Contention shapes (saga level" in text
    assert all(shape in text for shape in SHAPES)
