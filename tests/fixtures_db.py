"""Database fixtures: a freshly migrated SQLite file or PostgreSQL database per test.

PostgreSQL comes from FUNDSAGA_TEST_PG_URL (default: the local server, user postgres), the
admin that creates, migrates and drops the test databases; tests connect as the worker role, or
as the owner role where they need its privileges. Both roles log in without a password (trust
authentication, or a ~/.pgpass entry). The tests skip when the server is unreachable, except
under CI=true where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest
from sqlalchemy import URL, Engine, create_engine, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from sagas.foundations import DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE, upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def postgres_server_url() -> URL:
    url = make_url(os.environ.get("FUNDSAGA_TEST_PG_URL", DEFAULT_PG_URL))
    return url.set(drivername="postgresql+psycopg")


def postgres_role_url(database: str, role: str | None = None) -> str:
    """The test server's URL for `database`, as `role` (no password) or as the admin."""
    url = postgres_server_url().set(database=database)
    if role is not None:
        url = url.set(username=role, password=None)
    return url.render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An autocommit engine on the PostgreSQL server, for creating and dropping databases."""
    engine = create_engine(
        postgres_server_url(),
        isolation_level="AUTOCOMMIT",
        poolclass=NullPool,
        connect_args={"connect_timeout": 5},
    )
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except OperationalError as exc:
        engine.dispose()
        message = f"PostgreSQL not reachable at {postgres_server_url()!r}: {exc.orig}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    yield engine
    engine.dispose()


class NewPostgresDatabase(Protocol):
    def __call__(self, *, owner: str | None = None) -> str: ...


@pytest.fixture
def new_postgres_database(postgres_admin: Engine) -> Iterator[NewPostgresDatabase]:
    """Makes fresh PostgreSQL databases migrated to head; all are dropped after the test.

    By default the admin creates and migrates them, and the migration hands every table to
    DATABASE_OWNER_ROLE. With `owner`, the database is created owned by that role and migrated
    connecting as it, as a deployment does.
    """
    names: list[str] = []

    def create(*, owner: str | None = None) -> str:
        name = f"fundsaga_test_{uuid.uuid4().hex[:16]}"
        owned_by = f' OWNER "{owner}"' if owner else ""
        with postgres_admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"{owned_by}')
        names.append(name)
        upgrade_database(postgres_role_url(name, owner))
        return name

    try:
        yield create
    finally:
        with postgres_admin.connect() as connection:
            for name in names:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_database(new_postgres_database: NewPostgresDatabase) -> str:
    """The name of a fresh, migrated PostgreSQL database, dropped after the test."""
    return new_postgres_database()


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """A fresh migrated database, connecting as the worker role, as workers and the CLI do."""
    return postgres_role_url(postgres_database, DATABASE_WORKER_ROLE)


@pytest.fixture
def postgres_owner_url(postgres_database: str) -> str:
    """The same database as `postgres_url`, connecting as the role that owns its tables."""
    return postgres_role_url(postgres_database, DATABASE_OWNER_ROLE)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """The URL of a fresh, migrated SQLite file."""
    url = f"sqlite:///{tmp_path / 'db' / 'fundsaga.db'}"
    upgrade_database(url)
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    """A fresh migrated database, once on SQLite and once on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
def database_owner_url(database_url: str, request: pytest.FixtureRequest) -> str:
    """`database_url` as the role that may migrate it and drop its triggers.

    The same URL on SQLite; on PostgreSQL the owner role's, which the worker role is not.
    """
    if database_url.startswith("sqlite"):
        return database_url
    url: str = request.getfixturevalue("postgres_owner_url")
    return url


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    """A Ledger on the migrated `database_url`, signing as the test suite's worker does."""
    instance = Ledger.from_url(database_url, signer=TEST_SIGNER)
    yield instance
    instance.engine.dispose()
