"""The lock files: every dependency, transitive ones too, pinned with hashes; in step with
pyproject.toml; and what this environment (made by `make` from the dev lock) actually holds."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"
_ENTRY = re.compile(
    r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)", re.M
)
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(path: Path) -> dict[str, str]:
    """Package → version, for the entries that carry at least one hash."""
    return {canonical(m[1]): m[2] for m in _ENTRY.finditer(path.read_text())}


def requirement_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if re.match(r"^[A-Za-z0-9]", line)]


def pins(group: list[str]) -> dict[str, str]:
    found = {}
    for requirement in group:
        match = _PIN.match(requirement)
        assert match, f"pyproject.toml: {requirement!r} is not pinned with =="
        found[canonical(match[1])] = match[2]
    return found


def project() -> dict[str, object]:
    loaded: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return loaded


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, DEV_LOCK], ids=lambda p: p.name)
def test_every_entry_is_pinned_with_hashes(lock: Path) -> None:
    entries = requirement_lines(lock)

    assert entries
    assert len(locked(lock)) == len(entries), "an entry without == and a sha256 hash"
    assert "@" not in "".join(entries), "a direct reference cannot be hashed by the lock"


def test_the_locks_hold_pyproject_s_pins() -> None:
    runtime = pins(project()["dependencies"])  # type: ignore[arg-type]
    extras: dict[str, list[str]] = project()["optional-dependencies"]  # type: ignore[assignment]
    dev = pins(extras["dev"]) | runtime

    assert {name: locked(RUNTIME_LOCK).get(name) for name in runtime} == runtime
    assert {name: locked(DEV_LOCK).get(name) for name in dev} == dev
    assert pins(extras["testing"]).items() <= pins(extras["dev"]).items()


def test_the_runtime_lock_is_the_dev_lock_s_runtime_part() -> None:
    """One resolution: a package in both locks has the same version in both."""
    dev = locked(DEV_LOCK)
    differing = {
        name: (pinned, dev[name])
        for name, pinned in locked(RUNTIME_LOCK).items()
        if name in dev and dev[name] != pinned
    }
    assert differing == {}


def test_this_environment_is_the_dev_lock() -> None:
    installed = {}
    for name in locked(DEV_LOCK):
        try:
            installed[name] = version(name)
        except PackageNotFoundError:
            installed[name] = "missing"

    assert installed == locked(DEV_LOCK)


def test_make_installs_from_the_lock_only() -> None:
    makefile = (ROOT / "Makefile").read_text()
    install = [line.strip() for line in makefile.splitlines() if "pip install" in line]

    assert "$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements-dev.lock" in (
        install
    )
    project_install = "$(BIN)/pip install --quiet --no-deps --no-build-isolation -e ."
    assert project_install in install
    unlocked = [
        line
        for line in install
        if line.startswith("$(BIN)/pip")
        and "--require-hashes" not in line
        and line != project_install
        and "tooling/bench" not in line
    ]
    assert unlocked == []
