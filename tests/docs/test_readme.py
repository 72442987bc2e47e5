"""The README runs as written. Its first block is `make run`; the test starts what that runs
(`python -m tooling.demo`: the provider simulator and `fundsaga dev --demo`) in a directory of its
own on free ports, then runs every later `sh`, `bash` and `python` block in order, as a newcomer
pastes them into a second terminal: the shell blocks through the checkout's `.venv/bin/fundsaga`,
the Python block as a script. Each must exit 0. A block fenced `sh needs-docker` (the production
stack) is the only kind left out. Then Ctrl-C, as a terminal sends it, stops the stack without a
warning."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sagas.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RUNNABLE = {"sh", "bash", "python"}
NEEDS_DOCKER = "needs-docker"
READY = "Ctrl-C stops everything"
STACK_TIMEOUT_SECONDS = 180
BLOCK_TIMEOUT_SECONDS = 300

pytestmark = [pytest.mark.e2e, pytest.mark.long, pytest.mark.timeout(900)]


@dataclass(frozen=True)
class Block:
    info: str
    code: str
    line: int

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info else ""

    @property
    def needs_docker(self) -> bool:
        return NEEDS_DOCKER in self.info.split()[1:]


def readme_blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [
        Block(match.group(1).strip(), match.group(2), text.count("\n", 0, match.start()) + 1)
        for match in re.finditer(r"^```([^\n`]*)\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    ]


def blocks_to_run() -> list[Block]:
    """Every block after the first (`make run` itself) but those that need Docker."""
    return [b for b in readme_blocks()[1:] if b.language in RUNNABLE and not b.needs_docker]


def test_the_first_block_is_make_run_and_only_docker_blocks_are_left_out() -> None:
    first, *rest = readme_blocks()
    assert first.code.splitlines()[0].startswith("make run")
    for block in rest:
        assert block.language in RUNNABLE | {"text"}, f"README line {block.line}: {block.info}"
        if block.needs_docker:
            assert "docker compose" in block.code, f"README line {block.line}"
    assert {b.language for b in blocks_to_run()} == {"sh", "python"}


class MakeRun:
    """`python -m tooling.demo` in `home`, its output collected as it comes."""

    def __init__(self, home: Path, env: dict[str, str], ports: list[int]) -> None:
        port, ui_port, http_port, metrics_port = ports
        options = ["--port", str(port), "--ui-port", str(ui_port)]
        options += ["--http-port", str(http_port), "--metrics-port", str(metrics_port)]
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tooling.demo", *options],
            cwd=home,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        assert self.process.stdout is not None
        stdout = self.process.stdout
        self.reader = threading.Thread(target=lambda: self.lines.extend(stdout), daemon=True)
        self.reader.start()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STACK_TIMEOUT_SECONDS
        while not any(READY in line for line in self.lines):
            assert self.process.poll() is None, self.output()
            assert time.monotonic() < deadline, self.output()
            time.sleep(0.2)

    def ctrl_c(self) -> list[str]:
        """SIGINT to the whole group, as a terminal's Ctrl-C; the lines printed after it."""
        before = len(self.lines)
        os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=60)
        self.reader.join(timeout=10)
        return self.lines[before:]

    def close(self) -> None:
        """After a failure too: SIGTERM to the group, so `fundsaga dev` stops its dev server."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.reader.join(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()

    def output(self) -> str:
        return "".join(self.lines)


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[tuple[MakeRun, Path, dict[str, str]]]:
    """A fresh checkout's view of the stack: `.venv` beside `.fundsaga`, no FUNDSAGA_ or
    TEMPORAL_ settings: the second terminal learns the stack's address as the README says."""
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    ports = [free_port() for _ in range(4)]
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith(("FUNDSAGA_", "TEMPORAL_"))
    }
    env = inherited | {"PYTHONPATH": str(ROOT)}
    stack = MakeRun(tmp_path, env, ports)
    try:
        stack.wait_ready()
        yield stack, tmp_path, env
    finally:
        stack.close()


def run_block(
    block: Block, home: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """The block's run, and the environment the terminal has after it: what a shell block
    exports stays for the blocks after it, as in one terminal."""
    kept = home / ".terminal-env"
    kept.unlink(missing_ok=True)
    if block.language == "python":
        script = home / f"readme-line-{block.line}.py"
        script.write_text(block.code, encoding="utf-8")
        argv = [str(home / ".venv" / "bin" / "python"), str(script)]
    else:
        argv = ["bash", "-euo", "pipefail", "-c", f"{block.code}\nenv -0 > {kept}"]
    done = subprocess.run(
        argv,
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_SECONDS,
    )
    if not kept.exists():
        return done, env
    pairs = kept.read_text(encoding="utf-8").split("\0")
    return done, dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def test_every_block_runs_in_order_after_make_run(
    make_run: tuple[MakeRun, Path, dict[str, str]],
) -> None:
    stack, home, env = make_run
    outputs = []
    assert "TEMPORAL_ADDRESS" not in env
    for block in blocks_to_run():
        done, env = run_block(block, home, env)
        assert done.returncode == 0, (
            f"README line {block.line} ({block.language}) exited {done.returncode}:\n"
            f"{done.stdout}\n{done.stderr}"
        )
        outputs.append(done.stdout)
    shell, python = outputs
    assert '"status": "COMPLETED"' in shell  # transfer view k1 --output json
    assert "rent-3b" in shell
    assert python.startswith("COMPLETED ['reserve', 'capture', 'credit', 'settle', 'release']")
    assert (home / "report.html").read_text(encoding="utf-8").lstrip().startswith("<!")

    after = stack.ctrl_c()
    warnings = [line for line in after if re.search(r"\bWARN", line)]
    assert warnings == [], "".join(after)
