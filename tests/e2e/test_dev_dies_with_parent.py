"""Every server `fundsaga dev` starts dies with it, even when it is killed by SIGKILL: the next
`fundsaga dev` (or `make run`) finds its ports free. The launcher that keeps the dev server in a
process group of its own stays as its supervisor: the SDK forks the launcher from a thread of
its runtime, and a thread that ends must not take the server with it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sagas.servers import free_port, port_is_free

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(180),
    pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's"),
    pytest.mark.long,
]
FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
GONE_WITHIN = 20.0
"""Seconds a killed owner's servers have to go (a loaded machine's scheduler included)."""


@dataclass(frozen=True)
class Proc:
    """A process, told apart from a later one that reuses its pid by its start time."""

    pid: int
    started: int

    @staticmethod
    def of(pid: int) -> Proc | None:
        fields = _stat(pid)
        return None if fields is None else Proc(pid, int(fields[19]))

    def alive(self) -> bool:
        fields = _stat(self.pid)
        return fields is not None and fields[0] != "Z" and int(fields[19]) == self.started

    def command(self) -> str:
        try:
            return Path(f"/proc/{self.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return ""

    def kill(self) -> None:
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat from its third field (the state) on; None once it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def descendants(pid: int) -> list[Proc]:
    """The live processes below `pid`, children first."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: list[Proc] = []
    below = [pid]
    while below:
        parent = below.pop(0)
        for child in (p for p, pp in parents.items() if pp == parent):
            if (proc := Proc.of(child)) is not None:
                found.append(proc)
                below.append(child)
    return found


def eventually(done: Callable[[], bool], seconds: float, what: Callable[[], str]) -> None:
    """Poll `done` until it holds; fail with `what()` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what()
        time.sleep(0.05)


@pytest.fixture
def started() -> Iterator[list[Proc]]:
    """The processes a test started and found, each killed at the end if still alive."""
    procs: list[Proc] = []
    yield procs
    for proc in procs:
        proc.kill()


OWNER = """
import subprocess, sys, threading, time
from sagas.servers._devserver import own_process_group
with own_process_group(sys.argv[1]) as launcher:
    spawned = []
    thread = threading.Thread(target=lambda: spawned.append(subprocess.Popen([launcher, "600"])))
    thread.start()
    thread.join()
    print(spawned[0].pid, thread.native_id, flush=True)
    time.sleep(600)
"""
"""Launches `sleep 600` as the SDK launches the dev server: from a thread that then ends."""


@dataclass(frozen=True)
class Launched:
    owner: Proc
    launcher: Proc
    server: Proc


@pytest.fixture
def launched(started: list[Proc]) -> Iterator[Launched]:
    """An owner, the launcher it started from a thread now gone, and the server below it."""
    sleep = shutil.which("sleep") or "/bin/sleep"
    with subprocess.Popen(
        [sys.executable, "-c", OWNER, sleep],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as owner_process:
        try:
            yield launched_below(owner_process, started)
        finally:
            os.killpg(owner_process.pid, signal.SIGKILL)


def launched_below(owner_process: subprocess.Popen[str], started: list[Proc]) -> Launched:
    owner = Proc.of(owner_process.pid)
    assert owner is not None
    started.append(owner)
    assert owner_process.stdout is not None
    launcher_pid, thread_id = map(int, owner_process.stdout.readline().split())
    launcher = Proc.of(launcher_pid)
    assert launcher is not None
    started.append(launcher)
    eventually(
        lambda: not Path(f"/proc/{owner.pid}/task/{thread_id}").exists(),
        GONE_WITHIN,
        lambda: "the launching thread did not end",
    )
    eventually(lambda: bool(descendants(launcher.pid)), GONE_WITHIN, lambda: "no server")
    (server,) = descendants(launcher.pid)
    started.append(server)
    assert "sleep 600" in server.command()
    return Launched(owner, launcher, server)


def test_the_server_outlives_the_thread_that_launched_it_and_dies_with_its_owner(
    launched: Launched,
) -> None:
    assert launched.launcher.alive()
    assert launched.server.alive()

    os.kill(launched.owner.pid, signal.SIGKILL)

    left = (launched.launcher, launched.server)
    eventually(
        lambda: not any(p.alive() for p in left),
        GONE_WITHIN,
        lambda: f"left alive: {[p.command() for p in left if p.alive()]}",
    )


def test_killing_the_launcher_as_the_sdk_stops_it_takes_the_server(launched: Launched) -> None:
    os.kill(launched.launcher.pid, signal.SIGKILL)

    server = launched.server
    eventually(lambda: not server.alive(), GONE_WITHIN, lambda: f"left {server.command()}")
    assert launched.owner.alive()


def distinct_free_ports(count: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(free_port())
    return sorted(ports)


def dev_env() -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("FUNDSAGA_")}
    return inherited | {"FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0", "PYTHONUNBUFFERED": "1"}


def test_fundsaga_dev_killed_by_sigkill_leaves_no_server_and_no_port(
    tmp_path: Path, started: list[Proc]
) -> None:
    port, ui_port, http_port, metrics_port = ports = distinct_free_ports(4)
    options = ["--port", str(port), "--ui-port", str(ui_port)]
    options += ["--http-port", str(http_port), "--metrics-port", str(metrics_port)]
    log_path = tmp_path / "dev.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [FUNDSAGA, "dev", *options],
            cwd=tmp_path,
            env=dev_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    dev = Proc.of(process.pid)
    assert dev is not None
    started.append(dev)
    try:
        deadline = time.monotonic() + 120
        while "ready in" not in log_path.read_text():
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        below = descendants(dev.pid)
        started.extend(below)
        servers = [p for p in below if "start-dev" in p.command()]
        assert servers, [p.command() for p in below]
        assert not any(port_is_free(p) for p in ports)

        os.kill(dev.pid, signal.SIGKILL)
        process.wait(timeout=GONE_WITHIN)

        eventually(
            lambda: all(port_is_free(p) for p in ports) and not any(p.alive() for p in below),
            GONE_WITHIN,
            lambda: (
                f"held: {[p for p in ports if not port_is_free(p)]}, "
                f"alive: {[p.command()[:80] for p in below if p.alive()]}\n" + log_path.read_text()
            ),
        )
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
