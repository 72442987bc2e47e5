"""`fundsaga` finds a saga package in the directory it runs from, as `python -m` and pytest do;
tests/docs/test_adding_a_saga.py starts a real worker that way."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from sagas.worker import import_from_working_directory


@pytest.fixture(autouse=True)
def own_import_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])


def tiny_package(directory: Path, name: str) -> None:
    (directory / name).mkdir()
    (directory / name / "__init__.py").write_text("SAGA_TYPES: list[object] = []\n")


def test_a_package_in_the_working_directory_is_imported_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny_package(tmp_path, "tiny_wires_here")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tiny_wires_here")

    assert import_from_working_directory(["tiny_wires_here.types"])
    assert importlib.import_module("tiny_wires_here").SAGA_TYPES == []
    assert sys.path[0] == str(tmp_path.resolve())
    assert import_from_working_directory(["tiny_wires_here"])
    assert sys.path.count(str(tmp_path.resolve())) == 1


def test_a_directory_without_the_package_stays_off_the_import_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny_package(tmp_path, "other_package")
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)

    assert not import_from_working_directory(["tiny_wires_elsewhere"])
    assert not import_from_working_directory([])
    assert sys.path == before
