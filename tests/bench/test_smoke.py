"""A smoke run of the benchmark at tiny sizes: every phase runs and every field is written.

No assertion here is about a time or a speed: only that the figures exist, are sane and agree.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tooling.bench import BenchConfig, Report, Scenario, run_bench, table, write_outputs
from tooling.bench._metrics import paired_ratio

TEMPORAL = [
    Scenario.BARE,
    Scenario.ENGINE,
    Scenario.ENGINE_LOCAL,
    Scenario.COMPENSATE,
    Scenario.NAIVE,
]
INTERLEAVED = [Scenario.BARE, Scenario.ENGINE, Scenario.ENGINE_LOCAL, Scenario.NAIVE]


@pytest.fixture(scope="module")
async def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("bench")
    config = BenchConfig(output_dir=out, label="smoke", soak=6).smoke()
    report = await run_bench(config)
    write_outputs(report, out)
    data: dict[str, Any] = json.loads((out / "bench.json").read_text())
    return report, data, out


def scenario(data: dict[str, Any], name: Scenario) -> dict[str, Any]:
    found: list[dict[str, Any]] = [s for s in data["scenarios"] if s["name"] == name.value]
    assert len(found) == 1
    return found[0]


def check_latency(latency: dict[str, Any]) -> None:
    assert latency["n"] > 0
    assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["p99_ms"]
    assert latency["mean_ms"] > 0


def test_every_scenario_is_reported_once(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    _, data, _ = smoke
    assert [s["name"] for s in data["scenarios"]] == [s.value for s in (*TEMPORAL, Scenario.DBOS)]


@pytest.mark.parametrize("name", TEMPORAL)
def test_temporal_scenarios_have_every_figure(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    result = scenario(data, name)
    assert result["status"] == "ok"
    assert result["sagas"] > 0
    assert result["failures"] == 0
    assert result["tput"]
    assert all(v > 0 for v in result["tput"].values())
    assert set(result["tput_blocks"]) == set(result["tput"])
    check_latency(result["latency_c1"])
    assert isinstance(result["history_events"], float)
    assert result["history_events"] > 0
    assert isinstance(result["state_transitions"], float)
    assert result["state_transitions"] > 0
    assert result["worker_cpu_ms_per_saga"] > 0
    assert result["server_cpu_ms_per_saga"] > 0
    assert result["worker_peak_rss_mb"] > 0


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


def test_dbos_runs_where_installed_else_says_so(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    _, data, _ = smoke
    dbos = scenario(data, Scenario.DBOS)
    if importlib.util.find_spec("dbos") is None:
        assert dbos["status"].startswith("not installed")
        return
    assert dbos["status"] == "ok"
    assert dbos["failures"] == 0
    assert all(v > 0 for v in dbos["tput"].values())
    check_latency(dbos["latency_c1"])


ENGINES = {Scenario.ENGINE: "", Scenario.ENGINE_LOCAL: "_local"}


@pytest.mark.parametrize("name", ENGINES, ids=lambda name: name.value)
def test_ratios_are_computed_from_the_figures(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    tag = ENGINES[name]
    bare, engine = scenario(data, Scenario.BARE), scenario(data, name)
    ratios = data["ratios"]
    for c in data["conditions"]["concurrencies"].split(","):
        expected = paired_ratio(engine["tput_blocks"][c], bare["tput_blocks"][c])
        # the JSON's block figures are rounded to 0.01/s: compare to 2 %
        assert ratios[f"R_tput{tag}@{c}"] == pytest.approx(expected, rel=0.02)
    events = engine["history_events"] / bare["history_events"]
    assert ratios[f"R_events{tag}"] == pytest.approx(events, abs=0.001)
    p50 = engine["latency_c1"]["p50_ms"] / bare["latency_c1"]["p50_ms"]
    assert ratios[f"R_p50{tag}"] == pytest.approx(p50, abs=0.001)


@pytest.mark.parametrize("name", ENGINES, ids=lambda name: name.value)
def test_targets_say_met_exactly_when_the_value_meets_them(
    smoke: tuple[Report, dict[str, Any], Path], name: Scenario
) -> None:
    _, data, _ = smoke
    tag, label = ENGINES[name], name.value
    targets = {t["name"]: t for t in data["targets"]}
    events = targets[f"{label}: R_events{tag}"]
    assert events["met"] == (events["value"] <= 1.1)
    p50 = targets[f"{label}: R_p50{tag} (unloaded)"]
    assert p50["met"] == (p50["value"] <= 1.2)
    for c in data["conditions"]["concurrencies"].split(","):
        tput = targets[f"{label}: R_tput{tag}@{c}"]
        assert tput["met"] == (tput["value"] >= 0.9)
        lead = targets[f"{label} ahead of NAIVE @{c}"]
        assert lead["met"] == (lead["value"] > 1.0)


def test_local_steps_leave_fewer_history_events_than_activity_steps(
    smoke: tuple[Report, dict[str, Any], Path],
) -> None:
    _, data, _ = smoke
    local, engine = scenario(data, Scenario.ENGINE_LOCAL), scenario(data, Scenario.ENGINE)
    assert local["history_events"] < engine["history_events"]


def test_the_soak_samples_the_worker_memory(smoke: tuple[Report, dict[str, Any], Path]) -> None:
    _, data, _ = smoke
    soak = data["soak"]
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
    assert all(s.value in text for s in (*TEMPORAL, Scenario.DBOS))
    assert "(payload codec off)" in text.splitlines()[0]
    if importlib.util.find_spec("matplotlib") is None:
        assert data["plot"] is None
        assert any("matplotlib" in note for note in data["notes"])
    else:
        assert data["plot"] == "bench-latency.png"
        assert (out / data["plot"]).stat().st_size > 0
