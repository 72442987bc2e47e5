"""The ledger append bench measures every row it reports and checks every ledger it wrote;
speed itself is never asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.fixtures_db import postgres_server_url
from tooling.bench._ledger_append_report import (
    COST_TITLE,
    PROCESSES,
    RATIOS_TITLE,
    SHAPES,
    TITLES,
    WRITERS_SIGNED,
    WRITERS_UNSIGNED,
)
from tooling.bench._ledger_append_trees import REPOSITORY, baseline_tree
from tooling.bench._ledger_append_writer import Shape, pair_of
from tooling.bench.ledger_append import main


@pytest.mark.postgres
@pytest.mark.long
@pytest.mark.timeout(600)
def test_a_tiny_run_measures_every_row_and_finds_each_ledger_sound(
    postgres_admin: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = postgres_server_url().render_as_string(hide_password=False)
    written = tmp_path / "ledger-append.json"
    window = ["--seconds", "1", "--warmup", "0.2"]
    argv = ["--url", url, "--writers", "1", "2", "--shape-writers", "2", *window]
    assert main([*argv, "--json", str(written)]) == 0

    figures = json.loads(written.read_text())
    assert [(m["table"], m["row"]) for m in figures["measurements"]] == [
        (WRITERS_SIGNED, "1"),
        (WRITERS_SIGNED, "2"),
        (WRITERS_UNSIGNED, "1"),
        (WRITERS_UNSIGNED, "2"),
        *((SHAPES, shape.value) for shape in Shape),
        (PROCESSES, "1"),
        (PROCESSES, "2"),
    ]
    busiest = {m["row"]: m["current"]["busiest_account"] for m in figures["measurements"]}
    for m in figures["measurements"]:
        assert m["baseline"] is None
        assert m["current"]["invariant_findings"] == []
        assert m["current"]["entries"] > 0
        assert m["current"]["sagas_path"] == str(REPOSITORY / "sagas")
    assert busiest["hot-source"] == "hot-src"
    assert busiest["hot-destination"] == "hot-dst"
    assert busiest["hot-pair"] in {"hot-src", "hot-dst"}
    assert [r["name"] for r in figures["ratios"]] == [
        "signed: 2 writers / best",
        "unsigned: 2 writers / best",
        "signed / unsigned at 2 writers",
        "2 processes / 1 process",
    ]
    assert all(r["baseline"] is None and r["current"] for r in figures["ratios"])
    out = capsys.readouterr().out
    for title in (*TITLES.values(), COST_TITLE, RATIOS_TITLE):
        assert title in out
    assert "Every ledger measured (8) checked sound: check_invariants() == []" in out


def test_the_shapes_contend_where_they_say() -> None:
    assert [pair_of(Shape.SPREAD, w) for w in (0, 1)] == [("src-0", "dst-0"), ("src-1", "dst-1")]
    assert [pair_of(Shape.HOT_SOURCE, w) for w in (0, 1)] == [
        ("hot-src", "dst-0"),
        ("hot-src", "dst-1"),
    ]
    assert [pair_of(Shape.HOT_DESTINATION, w) for w in (0, 1)] == [
        ("src-0", "hot-dst"),
        ("src-1", "hot-dst"),
    ]
    assert {pair_of(Shape.HOT_PAIR, w) for w in (0, 1)} == {("hot-src", "hot-dst")}


def test_a_baseline_is_a_worktree_whose_code_imports_its_own_sagas_and_migrations() -> None:
    """Installed, `sagas.migrations` maps to this repository's migrations/: the baseline's
    checkout must shadow both names, or its run would migrate with today's schema."""
    with baseline_tree("HEAD") as tree:
        where = subprocess.run(
            [sys.executable, "-P", "-c", _PRINT_ORIGINS],
            env={**os.environ, "PYTHONPATH": str(tree.root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        root = tree.root.resolve()
        assert where == [str(root / "sagas"), str(root / "migrations")]
        assert str(root) in _worktrees()
    assert not root.exists()
    assert str(root) not in _worktrees()


_PRINT_ORIGINS = """
import importlib.util, pathlib, sagas
migrations = importlib.util.find_spec("sagas.migrations").submodule_search_locations[0]
print(pathlib.Path(sagas.__file__).resolve().parent)
print(pathlib.Path(migrations).resolve())
"""


def _worktrees() -> str:
    return subprocess.run(
        ["git", "worktree", "list"], cwd=REPOSITORY, capture_output=True, text=True, check=True
    ).stdout
