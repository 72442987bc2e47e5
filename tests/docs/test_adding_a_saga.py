"""docs/adding-a-saga.md works as written: its files, put in an empty directory, make a saga
type whose histories record and whose fault matrix and determinism guard pass, using only
fundsaga's public modules."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adding-a-saga.md"
FILE_BLOCK = re.compile(r"<!-- file: (?P<path>\S+) -->\n```\w*\n(?P<body>.*?)```", re.DOTALL)
IMPORTED = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.MULTILINE)


def guide_files() -> dict[str, str]:
    return {m["path"]: m["body"] for m in FILE_BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("FUNDSAGA_")}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_guide_imports_no_private_module() -> None:
    modules = set(IMPORTED.findall("\n".join(guide_files().values())))
    private = {m for m in modules if any(part.startswith("_") for part in m.split("."))}

    assert {"sagas", "sagas.registry", "sagas.ledger", "sagas.testing"} <= modules
    assert private == {"__future__"}


@pytest.mark.e2e
def test_a_saga_written_from_the_guide_records_and_passes_its_tests(tmp_path: Path) -> None:
    files = guide_files()
    assert {"my_payouts/saga.py", "tests/test_payout.py", "pytest.ini"} <= files.keys()
    for relative, body in files.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")

    recorded = run(
        [
            "-m",
            "sagas.testing",
            "record",
            "tests.payout_scenario:PAYOUT_SCENARIO",
            "tests/histories",
        ],
        tmp_path,
    )
    assert recorded.returncode == 0, recorded.stderr[-3000:]
    assert len(list((tmp_path / "tests" / "histories").glob("*.json"))) == 5

    tested = run(["-m", "pytest", "-q", "-p", "no:cacheprovider"], tmp_path)
    assert tested.returncode == 0, tested.stdout[-3000:]
    # 2 steps: 4 action cases each, 7 compensation cases each; 1 coverage test; 5 histories.
    assert re.search(r"\b28 passed\b", tested.stdout), tested.stdout[-500:]
