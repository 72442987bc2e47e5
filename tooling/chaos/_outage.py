"""The chaos run's database outage: the database gone for a while, then back.

On a PostgreSQL cluster the run started itself, the cluster stops as in a crash (`pg_ctl stop -m
immediate`) and starts again: every worker's connection drops and new ones are refused. Any
other database (SQLite, or a server the run does not own) has no server to stop: the outage is
injected into the chaos workers instead, every statement of theirs failing as a lost connection
while a flag file exists. The harness's own ledger (its start checks, the spending payees, the
checker) keeps its database then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from sagas.testing import PostgresCluster, StopMode

OUTAGE_FLAG_ENV = "FUNDSAGA_CHAOS_OUTAGE_FLAG"
"""The chaos workers' variable naming the flag file of an injected outage."""


class DatabaseOutage(Protocol):
    kind: str
    """What the outage does, for the report."""

    def begin(self) -> None: ...

    def end(self) -> None: ...


class ClusterOutage:
    """The run's own cluster stops as in a crash, and starts again."""

    kind = "PostgreSQL cluster stopped (-m immediate)"

    def __init__(self, cluster: PostgresCluster) -> None:
        self.cluster = cluster

    def begin(self) -> None:
        self.cluster.stop(StopMode.IMMEDIATE)

    def end(self) -> None:
        self.cluster.start()


class InjectedOutage:
    """Every statement of the chaos workers fails as a lost connection while `flag` exists."""

    kind = "injected in the workers: every statement fails as a lost connection"

    def __init__(self, flag: Path) -> None:
        self.flag = flag

    def begin(self) -> None:
        self.flag.touch()

    def end(self) -> None:
        self.flag.unlink(missing_ok=True)
