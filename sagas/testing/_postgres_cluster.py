"""A PostgreSQL cluster of a test's own: its data directory and port, so the test can stop it.

The cluster runs PostgreSQL's own `initdb` and `pg_ctl` (on PATH, else the newest under
/usr/lib/postgresql/*/bin). PostgreSQL refuses to run as root: under root they run as the
`postgres` user (`runuser`), which owns the cluster's directory.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

SERVER_USER = "postgres"
"""The operating-system user the cluster runs as when the caller is root; also its superuser."""
FALLBACK_BIN_DIRS = "/usr/lib/postgresql/*/bin"
START_TIMEOUT_S = 60


class PostgresNotFoundError(RuntimeError):
    """No `initdb` and `pg_ctl` on PATH or under /usr/lib/postgresql/*/bin."""


class StopMode(StrEnum):
    """How `pg_ctl stop` ends the server (its `-m`)."""

    FAST = "fast"  # rolls back open transactions and disconnects every client, then a checkpoint
    IMMEDIATE = "immediate"  # quits at once, as a crash would: recovery runs at the next start


def postgres_bin_dir() -> Path | None:
    """The directory holding `initdb` and `pg_ctl`: PATH's, else the newest installed version's."""
    on_path = shutil.which("initdb")
    if on_path is not None and shutil.which("pg_ctl") is not None:
        return Path(on_path).parent
    installed = sorted(
        Path("/").glob(FALLBACK_BIN_DIRS.lstrip("/")),
        key=lambda bin_dir: _version(bin_dir.parent.name),
    )
    found = [bin_dir for bin_dir in installed if (bin_dir / "initdb").exists()]
    return found[-1] if found else None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class PostgresCluster:
    """A cluster initialised in `directory`, listening on 127.0.0.1:`port` once started.

    `create()` makes one; `start()`, `stop(mode)` and `restart(mode)` drive it; `url(database)`
    is a SQLAlchemy URL to it as its superuser `postgres` (trust authentication).
    """

    directory: Path
    port: int
    bin_dir: Path

    @classmethod
    def create(cls, directory: Path | None = None) -> PostgresCluster:
        """`initdb` a cluster in `directory` (default: a new temporary directory; its parents must
        be open to the `postgres` user under root); PostgresNotFoundError without PostgreSQL."""
        bin_dir = postgres_bin_dir()
        if bin_dir is None:
            raise PostgresNotFoundError(
                f"initdb and pg_ctl not found on PATH or under {FALLBACK_BIN_DIRS}"
            )
        base = directory or Path(tempfile.mkdtemp(prefix="fundsaga-pg-"))
        base.mkdir(parents=True, exist_ok=True)
        if _as_root():
            shutil.chown(base, user=SERVER_USER)
        cluster = cls(base, _free_port(), bin_dir)
        cluster._run(
            "initdb",
            "-D",
            str(cluster.data_dir),
            "-A",
            "trust",
            "-U",
            SERVER_USER,
            "--no-sync",
            "-E",
            "UTF8",
        )
        return cluster

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def log_file(self) -> Path:
        return self.directory / "server.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{SERVER_USER}@127.0.0.1:{self.port}/{database}"

    @property
    def running(self) -> bool:
        status = self._pg_ctl("status", check=False)
        return status.returncode == 0

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._pg_ctl(
            "start", "-w", "-t", str(START_TIMEOUT_S), "-l", str(self.log_file), "-o", options
        )

    def stop(self, mode: StopMode = StopMode.FAST) -> None:
        """Stop the server; its clients' connections drop (IMMEDIATE: as in a crash)."""
        self._pg_ctl("stop", "-w", "-m", StopMode(mode).value)

    def restart(self, mode: StopMode = StopMode.FAST) -> None:
        self.stop(mode)
        self.start()

    def remove(self) -> None:
        """Stop the server if it runs, and delete the cluster's directory."""
        if self.running:
            self.stop(StopMode.IMMEDIATE)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self._run("pg_ctl", "-D", str(self.data_dir), *args, check=check)

    def _run(
        self, program: str, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        command: Sequence[str] = [str(self.bin_dir / program), *args]
        if _as_root():
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if check and done.returncode != 0:
            raise RuntimeError(
                f"{program} {' '.join(args)} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()}"
            )
        return done


def _as_root() -> bool:
    return os.geteuid() == 0


@contextmanager
def postgres_cluster(directory: Path | None = None) -> Iterator[PostgresCluster]:
    """A started cluster of its own, removed with its directory on exit."""
    cluster = PostgresCluster.create(directory)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()
