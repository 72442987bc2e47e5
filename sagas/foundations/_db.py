"""Database engines for SQLite and PostgreSQL, and running the Alembic migrations to head."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import URL, Connection, Engine, create_engine, event, make_url
from sqlalchemy.pool import ConnectionPoolEntry

from sagas.foundations._errors import InvalidRequestError

MIGRATIONS_PACKAGE = "sagas.migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str) -> Engine:
    """An engine for a `sqlite:///PATH` or `postgresql[+psycopg]://...` URL."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed)
    if backend == "postgresql":
        return _postgres_engine(parsed.set(drivername="postgresql+psycopg"))
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
    """Run every migration up to head on the database at `url`."""
    command.upgrade(alembic_config(url), "head")


def _postgres_engine(url: URL) -> Engine:
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=40)


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        pool_size=10,
        max_overflow=60,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_on_begin(connection: Connection) -> None:
    # IMMEDIATE takes the write lock up front, so concurrent writers queue on busy_timeout
    # instead of failing when a read lock would have to be upgraded.
    connection.exec_driver_sql("BEGIN IMMEDIATE")
