"""Inside a chaos worker: transient database errors mid-transaction, and kills right after a commit.

Both are installed only by `python -m tooling.chaos.worker`; nothing else in fundsaga loads this.
"""

from __future__ import annotations

import os
import random
import signal
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session


class _InjectedError(Exception):
    def __init__(self, message: str, sqlstate: str | None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


_SQLITE_FAULTS = (("database is locked", None),)
_POSTGRES_FAULTS = (
    ("deadlock detected", "40P01"),
    ("could not serialize access due to concurrent update", "40001"),
    ("terminating connection due to administrator command", "57P01"),
)


def inject_db_faults(engine: Engine, rate: float, rng: random.Random) -> None:
    """Make a fraction `rate` of SQL statements fail as the database would under contention."""
    faults = _SQLITE_FAULTS if engine.dialect.name == "sqlite" else _POSTGRES_FAULTS

    def before_execute(*_: Any) -> None:
        if rng.random() < rate:
            message, sqlstate = rng.choice(faults)
            print(f"chaos: injected database fault: {message}", flush=True)
            raise OperationalError("chaos", None, _InjectedError(f"injected: {message}", sqlstate))

    event.listen(engine, "before_cursor_execute", before_execute)


_armed = {"kill_after_commit": False}


def kill_after_next_commit_on_sigusr1() -> None:
    """SIGUSR1 arms a SIGKILL of this process right after its next committed transaction."""

    def arm(*_: Any) -> None:
        _armed["kill_after_commit"] = True

    def after_commit(_: Session) -> None:
        if _armed["kill_after_commit"]:
            os.kill(os.getpid(), signal.SIGKILL)

    signal.signal(signal.SIGUSR1, arm)
    event.listen(Session, "after_commit", after_commit)


def fail_during_outage(engine: Engine, flag: str) -> None:
    """While the file `flag` exists, every SQL statement fails as a connection the server
    refused (SQLSTATE 08006): the injected outage of a database the harness cannot stop."""

    def before_execute(*_: Any) -> None:
        if os.path.exists(flag):
            raise OperationalError(
                "chaos outage", None, _InjectedError("injected outage: server unreachable", "08006")
            )

    event.listen(engine, "before_cursor_execute", before_execute)
