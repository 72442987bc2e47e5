"""`fundsaga retry-plan`: the plan of a spec, a preset or a step's configured spec; exit 2 naming
the option that is out of range; warnings where the practice advises against a spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from sagas.cli import app
from sagas.engine import PRESETS, Preset, total_backoff

RUNNER = CliRunner()


def plan(*argv: str, **env: str) -> Result:
    return RUNNER.invoke(app, ["retry-plan", *argv], prog_name="fundsaga", env=env)


def plan_json(*argv: str, **env: str) -> dict[str, object]:
    result = plan(*argv, "--output", "json", **env)
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def waits_s(data: dict[str, object]) -> list[float]:
    retries = data["retries"]
    assert isinstance(retries, list)
    return [r["delay_ms"] / 1000 for r in retries]


def test_f10_m2_c10_waits_10_20_40_80_160_s_and_adds_them_up() -> None:
    data = plan_json("--first", "10s", "--multiplier", "2", "--max-retries", "10")

    assert waits_s(data)[:5] == [10, 20, 40, 80, 160]
    assert len(waits_s(data)) == 10
    assert data["total_ms"] == 10_230_000
    retries = data["retries"]
    assert isinstance(retries, list)
    assert [r["cumulative_ms"] for r in retries[:3]] == [10_000, 30_000, 70_000]


def test_the_table_shows_each_retry_and_the_time_so_far() -> None:
    result = plan("--first", "10s", "--multiplier", "2", "--max-retries", "10")

    assert result.exit_code == 0
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("F=10 s M=2 C=10")
    assert lines[2].split() == ["retry", "wait", "cumulative"]
    assert lines[4].split() == ["2", "20", "s", "30", "s"]


def test_the_plan_shows_how_a_saga_waits_out_the_infrastructure() -> None:
    """Its defaults: quick retries, then 1 s doubling to the one-minute cap, never parked."""
    result = plan("--first", "10s", "--multiplier", "2", "--max-retries", "10")
    data = plan_json("--first", "10s", "--multiplier", "2", "--max-retries", "10")

    line = result.stdout.splitlines()[1]
    assert "then runs again after 1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 1 min" in line
    assert "a compensation without limit; never parked" in line
    assert data["infrastructure"] == {
        "first_interval_ms": 1000,
        "multiplier": "2",
        "max_interval_ms": 60000,
        "max_retries": None,
    }


def test_a_cap_holds_every_wait() -> None:
    data = plan_json(
        "--first", "1s", "--multiplier", "3", "--max-retries", "4", "--max-interval", "5s"
    )

    assert waits_s(data) == [1, 3, 5, 5]


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["--first", "0s", "--multiplier", "2", "--max-retries", "3"], "--first"),
        (["--first", "ten", "--multiplier", "2", "--max-retries", "3"], "--first"),
        (["--first", "1s", "--multiplier", "8.5", "--max-retries", "3"], "--multiplier"),
        (["--first", "1s", "--multiplier", "2.25", "--max-retries", "3"], "--multiplier"),
        (["--first", "1s", "--multiplier", "x", "--max-retries", "3"], "--multiplier"),
        (["--first", "1s", "--multiplier", "2", "--max-retries", "17"], "--max-retries"),
        (["--first", "1s", "--multiplier", "2", "--max-retries", "0"], "--max-retries"),
        (
            ["--first", "5s", "--multiplier", "2", "--max-retries", "3", "--max-interval", "1s"],
            "--max-interval",
        ),
        (["--first", "1s", "--multiplier", "2", "--max-retries", "3", "--jitter", "full"], "--key"),
        (["--multiplier", "2"], "--first"),
        (["--saga", "transfer"], "--step"),
        (["--saga", "transfer", "--step", "nope"], "--step"),
        (["--saga", "wire-out", "--step", "credit"], "saga_type"),
    ],
)
def test_out_of_range_exits_2_naming_the_option(argv: list[str], option: str) -> None:
    result = plan(*argv)

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {option}"), result.stderr


@pytest.mark.parametrize("preset", list(Preset))
def test_presets_fall_in_the_practices_ranges_without_warnings(preset: Preset) -> None:
    result = plan("--preset", preset.value)
    spec = PRESETS[preset]

    assert result.exit_code == 0
    assert result.stderr == ""
    total = total_backoff(spec).total_seconds()
    low, high = {"short": (0, 60), "medium": (300, 600), "long": (3600, 7200)}[preset.value]
    assert low <= total <= high
    first = spec.first_interval.total_seconds()
    retries, multiplier = spec.max_retries, float(spec.multiplier)
    assert {
        "short": multiplier == 2 and 3 <= retries <= 5 and 1 <= first <= 5,
        "medium": multiplier == 2 and 5 <= retries <= 8 and 30 <= first <= 60,
        "long": 1.7 <= multiplier <= 1.8 and 8 <= retries <= 12 and 300 <= first <= 600,
    }[preset.value]


def test_options_override_a_preset() -> None:
    assert len(waits_s(plan_json("--preset", "short", "--max-retries", "3"))) == 3


@pytest.mark.parametrize(
    ("argv", "warning"),
    [
        (["--multiplier", "1.2"], "multiplier 1.2 is outside the advised [1.5, 4]"),
        (["--multiplier", "5"], "multiplier 5 is outside the advised [1.5, 4]"),
        (["--max-retries", "11"], "max_retries 11 is above the advised 10"),
        (["--max-retries", "16"], "longer than the deadline of 24 h"),
        (["--deadline", "1h"], "longer than the deadline of 1 h"),
    ],
)
def test_a_spec_the_practice_advises_against_warns_and_still_plans(
    argv: list[str], warning: str
) -> None:
    base = {"--first": "10s", "--multiplier": "2", "--max-retries": "10"}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        base[flag] = value
    result = plan(*[word for pair in base.items() for word in pair])

    assert result.exit_code == 0
    assert result.stdout
    assert warning in result.stderr
    assert all(line.startswith("warning: ") for line in result.stderr.splitlines())


def test_full_jitter_is_the_same_for_the_same_key_and_differs_for_another() -> None:
    argv = ["--first", "10s", "--multiplier", "2", "--max-retries", "10", "--jitter", "full"]
    one = waits_s(plan_json(*argv, "--key", "transfer-k1:credit:action"))

    assert one == waits_s(plan_json(*argv, "--key", "transfer-k1:credit:action"))
    assert one != waits_s(plan_json(*argv, "--key", "transfer-k2:credit:action"))
    assert all(0 < wait <= 10 * 2**n for n, wait in enumerate(one))


def test_a_steps_spec_from_the_code() -> None:
    data = plan_json("--saga", "transfer", "--step", "credit")

    assert waits_s(data) == [1, 2, 4]
    assert waits_s(plan_json("--saga", "transfer", "--step", "credit", "--class", "instant")) == [
        0.1,
        0.2,
        0.4,
    ]
    assert (
        len(waits_s(plan_json("--saga", "transfer", "--step", "credit", "--phase", "compensation")))
        == 10
    )


def test_a_steps_spec_overlaid_by_the_configuration_file(tmp_path: Path) -> None:
    specs = tmp_path / "retry.toml"
    specs.write_text(
        '[transfer.credit.action.temporary]\nfirst_interval = "3s"\nmax_retries = 5\n',
        encoding="utf-8",
    )

    data = plan_json("--saga", "transfer", "--step", "credit", FUNDSAGA_RETRY_SPECS=str(specs))

    assert waits_s(data) == [3, 6, 12, 24, 30]  # the code's cap of 30 s holds
