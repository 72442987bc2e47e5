"""The wheel ships the product only: no tooling, no top-level `migrations`, nothing left out."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "sagas", "workflows", "activities", "migrations")
PIP_WHEEL_OFFLINE = (
    sys.executable,
    "-m",
    "pip",
    "wheel",
    "--no-deps",
    "--no-build-isolation",
    "--no-index",
    "-q",
)
SHIPPED_PACKAGES = {"sagas": "sagas", "workflows": "workflows", "activities": "activities"}
"""Source folder → where its modules land in the wheel (migrations is mapped under sagas)."""


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy
        copy(REPO / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [*PIP_WHEEL_OFFLINE, "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("fundsaga-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _modules(folder: str) -> set[Path]:
    return {
        path.relative_to(REPO / folder)
        for path in (REPO / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }


def test_the_top_level_names_are_the_product_packages(wheel_files: set[str]) -> None:
    top = {name.split("/")[0] for name in wheel_files if not name.startswith("fundsaga-")}

    assert top == {"sagas", "workflows", "activities"}


def test_no_benchmark_chaos_or_tooling_module_ships(wheel_files: set[str]) -> None:
    shipped = [name for name in wheel_files if name.endswith(".py")]

    assert not [name for name in shipped if any(w in name for w in ("bench", "chaos", "tooling"))]


def test_every_product_module_ships(wheel_files: set[str]) -> None:
    for folder, target in SHIPPED_PACKAGES.items():
        missing = {m for m in _modules(folder) if f"{target}/{m.as_posix()}" not in wheel_files}
        assert not missing, f"{folder}: {sorted(map(str, missing))} not in the wheel"


def test_the_migrations_ship_as_package_data_of_sagas(wheel_files: set[str]) -> None:
    expected = {f"sagas/migrations/{m.as_posix()}" for m in _modules("migrations")}
    expected |= {"sagas/migrations/alembic.ini", "sagas/migrations/script.py.mako"}

    assert expected <= wheel_files
