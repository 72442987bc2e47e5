"""The processes a chaos run starts, kills and restarts: a file-backed dev server and workers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sagas.engine import SEARCH_ATTRIBUTE_KEYS, server_type_name
from sagas.servers import temporal_cli_path


def wait_for_port(port: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s} s")


class DevServer:
    """`temporal server start-dev` on a database file, so a restart keeps every history."""

    def __init__(self, database_file: Path, port: int, log: Path) -> None:
        self.database_file = database_file
        self.port = port
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        args = [
            temporal_cli_path(),
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db-filename",
            str(self.database_file),
            "--log-level",
            "error",
        ]
        for key in SEARCH_ATTRIBUTE_KEYS:
            args += ["--search-attribute", f"{key.name}={server_type_name(key)}"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


WORKER_ARGS = ("-m", "tooling.chaos.worker")


def webhook_receiver_args(port: int) -> tuple[str, ...]:
    """`fundsaga webhooks --port <port>`, run by this interpreter whatever the PATH says."""
    return ("-c", "from sagas.cli import main; main()", "webhooks", "--port", str(port))


class WorkerProcess:
    """One `python -m tooling.chaos.worker` (or another process `args` names), restarted
    whenever it dies."""

    def __init__(self, env: dict[str, str], log: Path, args: Sequence[str] = WORKER_ARGS) -> None:
        self.env = env
        self.log = log
        self.args = tuple(args)
        self.process: subprocess.Popen[bytes] | None = None
        self.deaths = 0

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, *self.args],
                env={**os.environ, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.process is not None and self.alive():
            self.process.kill()
            self.process.wait()

    def arm_kill_after_commit(self) -> None:
        if self.process is not None and self.alive():
            self.process.send_signal(signal.SIGUSR1)

    def revive_if_dead(self) -> bool:
        if self.alive():
            return False
        if self.process is not None:
            self.process.wait()
        self.deaths += 1
        self.start()
        return True

    def stop(self) -> None:
        if self.process is not None and self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
