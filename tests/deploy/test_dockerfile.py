"""The Dockerfile, read as text (Docker does not run here): a multi-stage build on pinned
images that installs the locked dependencies by hash, runs as a user other than root and
checks its health on the metrics endpoint; .dockerignore lets in only what it copies."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from tests.deploy.stack import ROOT

DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    lines = (line.strip() for line in text.splitlines())
    pairs = (line.split(None, 1) for line in lines if line and not line.startswith("#"))
    return [(pair[0].upper(), pair[1] if len(pair) > 1 else "") for pair in pairs]


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    start = max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM")
    return steps[start:]


def argument(instruction: str) -> str:
    (found,) = (args for name, args in final_stage() if name == instruction)
    return found


def test_the_build_has_a_stage_apart_from_the_image() -> None:
    assert len([name for name, _ in instructions() if name == "FROM"]) >= 2


def test_every_base_image_has_an_explicit_version() -> None:
    for name, args in instructions():
        if name == "FROM":
            image = args.split()[0]
            tag = image.partition(":")[2]
            assert tag != "latest", image
            assert re.match(r"\d+\.\d+\.\d+", tag), image
            assert "$" not in image, image


def test_the_image_runs_python_3_11_slim() -> None:
    image = next(args for name, args in final_stage() if name == "FROM")
    assert re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+", image.split()[0])


def test_the_image_runs_as_a_user_other_than_root() -> None:
    user = argument("USER").split(":")[0]
    assert user not in ("root", "0")


def test_dependencies_are_installed_from_the_lock_by_hash() -> None:
    runs = [args for name, args in instructions() if name == "RUN"]
    locked = [run for run in runs if "-r requirements.lock" in run]
    assert locked
    assert all("--require-hashes" in run and "--no-deps" in run for run in locked)
    project = [run for run in runs if run.rstrip().endswith(" .")]
    assert project, "the project itself is installed"
    # Nothing unpinned: no dependency, and no build backend fetched for an isolated build.
    assert all("--no-deps" in run and "--no-build-isolation" in run for run in project)


def test_every_package_the_project_ships_is_copied() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    renamed = setuptools["package-dir"]
    tops = {renamed.get(package, package).split(".")[0] for package in setuptools["packages"]}
    assert tops <= set(copied_sources())


def copied_sources() -> list[str]:
    sources = []
    for name, args in instructions():
        if name == "COPY" and not args.startswith("--from"):
            sources += [part.removeprefix("./") for part in args.split()[:-1]]
    return sources


def test_dockerignore_lets_in_only_what_is_copied() -> None:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [line for line in lines if line and not line.startswith("#")]
    assert patterns[0] == "*"
    let_in = {pattern.removeprefix("!") for pattern in patterns if pattern.startswith("!")}
    assert let_in == set(copied_sources())
    assert ".env" not in let_in


def test_the_entrypoint_is_the_fundsaga_command_and_runs_a_worker() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert json.loads(argument("ENTRYPOINT")) == ["fundsaga"]
    assert "fundsaga" in scripts
    assert json.loads(argument("CMD")) == ["worker"]


def health_check() -> list[str]:
    command: list[str] = json.loads(argument("HEALTHCHECK").split("CMD", 1)[1])
    return command


class _Metrics(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/metrics" else 404)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def metrics_port() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), _Metrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def run_health_check(address: str) -> int:
    program, *args = health_check()
    assert program == "python"
    done = subprocess.run(
        [sys.executable, *args],
        env={"FUNDSAGA_METRICS_ADDRESS": address},
        capture_output=True,
        timeout=30,
    )
    return done.returncode


def test_the_health_check_passes_while_metrics_are_served(metrics_port: int) -> None:
    assert run_health_check(f"0.0.0.0:{metrics_port}") == 0


def test_the_health_check_fails_when_nothing_serves_metrics(metrics_port: int) -> None:
    assert run_health_check("0.0.0.0:1") != 0
