"""Database engines for SQLite and PostgreSQL, and running the Alembic migrations to head.

Every session an engine opens has bounded waits (`DatabaseTimeouts`): a statement blocked on a
lock, a statement that runs on, or a transaction its client left open fails, as a transient
error the saga waits out, instead of waiting without limit.
"""

from __future__ import annotations

import importlib.util
import sqlite3
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import URL, Connection, Engine, create_engine, event, make_url
from sqlalchemy.pool import ConnectionPoolEntry

from sagas.foundations._errors import InvalidRequestError

MIGRATIONS_PACKAGE = "sagas.migrations"
MAX_TIMEOUT_SECONDS = 86_400.0
"""The longest bound a timeout may be set to: a day."""
STATEMENT_TIMEOUT = 30.0
"""A statement's bound in a worker and in every command but those below."""
SCAN_STATEMENT_TIMEOUT = 300.0
"""A statement's bound in the commands that read whole tables (verifiers, the collector)."""
CONNECT_TIMEOUT = 10
"""Seconds a new PostgreSQL connection may take (a server that accepts and never answers);
a URL's own `connect_timeout` wins."""


@dataclass(frozen=True, kw_only=True)
class DatabaseTimeouts:
    """How long, in seconds, a database session waits before the wait fails; the defaults are
    a worker's. Each must be more than 0 and at most a day."""

    lock: float = 5.0
    """PostgreSQL `lock_timeout`: the longest a statement waits for a lock another session
    holds (a row locked FOR UPDATE, a table being altered); then DatabaseBusyError."""
    statement: float | None = STATEMENT_TIMEOUT
    """PostgreSQL `statement_timeout`: the longest a statement runs; then DatabaseBusyError.
    None: the server's own setting (unbounded unless the role or database sets one)."""
    idle_in_transaction: float = 60.0
    """PostgreSQL `idle_in_transaction_session_timeout`: the server closes a session whose open
    transaction waits this long for its client, releasing its locks; then
    ConnectionDroppedError."""
    busy: float = 5.0
    """SQLite's busy timeout: the longest a writer waits for another's write lock; then
    DatabaseBusyError."""

    def __post_init__(self) -> None:
        self._validate()

    @classmethod
    def for_migrations(cls) -> DatabaseTimeouts:
        """Migrations: long DDL and backfills run to the end, but never wait long for a lock
        (a migration queued for a table stalls every session that uses it)."""
        return cls(lock=10.0, statement=None, idle_in_transaction=600.0, busy=30.0)

    def _validate(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not (_seconds(value) or (field.name == "statement" and value is None)):
                raise InvalidRequestError(
                    field.name, f"must be more than 0 and at most {MAX_TIMEOUT_SECONDS:g} seconds"
                )


def _seconds(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and 0 < value <= MAX_TIMEOUT_SECONDS
    )


def make_engine(url: str, *, timeouts: DatabaseTimeouts | None = None) -> Engine:
    """An engine for a `sqlite:///PATH` or `postgresql[+psycopg]://...` URL, whose sessions
    wait at most `timeouts` (None: a worker's, `DatabaseTimeouts()`)."""
    bounds = timeouts if timeouts is not None else DatabaseTimeouts()
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed, bounds)
    if backend == "postgresql":
        return _postgres_engine(parsed.set(drivername="postgresql+psycopg"), bounds)
    raise InvalidRequestError(
        "database_url", f"unsupported database {backend!r}: use sqlite:/// or postgresql://"
    )


def migrations_dir() -> Path:
    """The Alembic scripts, shipped as the package data `sagas.migrations` (repo: `migrations/`)."""
    spec = importlib.util.find_spec(MIGRATIONS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{MIGRATIONS_PACKAGE} is not installed: reinstall fundsaga")
    return Path(spec.submodule_search_locations[0])


def alembic_config(url: str) -> Config:
    """An Alembic configuration for fundsaga's migrations, pointed at `url`."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade_database(url: str) -> None:
    """Run every migration up to head on the database at `url`, with the bounds of
    `DatabaseTimeouts.for_migrations()`."""
    command.upgrade(alembic_config(url), "head")


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def _session_options(timeouts: DatabaseTimeouts) -> str:
    """The libpq `options` that set the session's timeouts when it starts."""
    settings = {
        "lock_timeout": timeouts.lock,
        "statement_timeout": timeouts.statement,
        "idle_in_transaction_session_timeout": timeouts.idle_in_transaction,
    }
    return " ".join(
        f"-c {name}={_milliseconds(seconds)}"
        for name, seconds in settings.items()
        if seconds is not None
    )


def _postgres_engine(url: URL, timeouts: DatabaseTimeouts) -> Engine:
    # Startup options, not SET on connect: no round trip, and neither a rollback nor RESET ALL
    # undoes them. The URL's own `options` follow ours, so they win.
    given = url.query.get("options", ())
    options = [_session_options(timeouts), *([given] if isinstance(given, str) else given)]
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=40,
        connect_args={
            "options": " ".join(options),
            "connect_timeout": url.query.get("connect_timeout", CONNECT_TIMEOUT),
        },
    )


def _sqlite_engine(url: URL, timeouts: DatabaseTimeouts) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        pool_size=10,
        max_overflow=60,
        connect_args={"check_same_thread": False, "timeout": timeouts.busy},
    )
    event.listen(engine, "connect", partial(_sqlite_on_connect, _milliseconds(timeouts.busy)))
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(
    busy_timeout_ms: int, dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry
) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_on_begin(connection: Connection) -> None:
    # IMMEDIATE takes the write lock up front, so concurrent writers queue on busy_timeout
    # instead of failing when a read lock would have to be upgraded.
    connection.exec_driver_sql("BEGIN IMMEDIATE")
