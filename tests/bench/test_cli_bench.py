"""`python -m tooling.bench` options become the run's configuration."""

from __future__ import annotations

import argparse
from pathlib import Path

import tooling.bench
from tooling.bench import DEFAULT_OUTPUT_DIR, BenchConfig, WorkerKnobs
from tooling.bench._cli import build_parser, config_from
from tooling.bench._metrics import latency, paired_ratio, percentile


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_defaults_are_the_full_run() -> None:
    config = config_from(parse())
    assert config == BenchConfig()
    assert config.output_dir == DEFAULT_OUTPUT_DIR == Path(".fundsaga/bench")
    assert config.concurrencies == (16, 64)
    assert config.rounds == 3
    assert config.databases == ("sqlite", "postgresql")
    assert config.variants
    assert (config.soak, config.scaling) == (0, ())
    assert (config.contention, config.only) == (200, None)


def test_only_contention_runs_the_shapes_alone() -> None:
    config = config_from(parse("--only", "contention", "--contention", "50"))
    assert (config.contention, config.only) == (50, "contention")
    assert config_from(parse("--full")).contention == 1000
    assert config_from(parse("--smoke")).contention < 50


def test_full_adds_the_soaks_and_the_process_scaling() -> None:
    config = config_from(parse("--full", "--database", "postgresql"))
    assert config.soak == 10_000
    assert config.scaling == (1, 2, 4)
    assert config.databases == ("postgresql",)
    assert config_from(parse("--scaling", "1,2", "--no-variants")).scaling == (1, 2)
    assert not config_from(parse("--no-variants")).variants


def test_smoke_and_knobs_are_passed_through() -> None:
    config = config_from(
        parse(
            "--smoke",
            "--soak",
            "100",
            "--eager-activities",
            "--workflow-task-slots",
            "8",
            "--sandbox",
            "off",
            "--codec",
        )
    )
    assert config.block < BenchConfig().block
    assert config.soak == 20
    assert config.rounds >= 2
    assert config.knobs == WorkerKnobs(
        eager_activities=True, max_concurrent_workflow_tasks=8, sandbox="off", codec=True
    )


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([5.0], 99) == 5.0
    assert latency([0.001, 0.002, 0.003]).p50_ms == 2.0
    assert paired_ratio([2.0, 3.0, 9.0], [2.0, 2.0, 3.0]) == 1.5


def test_the_public_names_change_only_on_purpose() -> None:
    assert sorted(tooling.bench.__all__) == [
        "BenchConfig",
        "Contention",
        "DEFAULT_OUTPUT_DIR",
        "Latency",
        "Report",
        "ScalingPoint",
        "Scenario",
        "ScenarioResult",
        "Soak",
        "StepCost",
        "Target",
        "TargetStatus",
        "WorkerKnobs",
        "measure_step_cost",
        "run_bench",
        "table",
        "write_outputs",
    ]


def test_only_scaling_runs_the_process_counts_alone() -> None:
    config = config_from(parse("--only", "scaling"))
    assert (config.only, config.scaling) == ("scaling", (1, 2, 4))
    assert config_from(parse("--only", "scaling", "--scaling", "1,2")).scaling == (1, 2)
