"""Database fixtures: a freshly migrated SQLite file or PostgreSQL database per test.

PostgreSQL comes from FUNDSAGA_TEST_PG_URL (default: the local server, user postgres); its
tests skip when the server is unreachable, except under CI=true where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import URL, Engine, create_engine, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def postgres_server_url() -> URL:
    url = make_url(os.environ.get("FUNDSAGA_TEST_PG_URL", DEFAULT_PG_URL))
    return url.set(drivername="postgresql+psycopg")


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


@pytest.fixture
def postgres_url(postgres_admin: Engine) -> Iterator[str]:
    """The URL of a fresh, migrated PostgreSQL database, dropped after the test."""
    name = f"fundsaga_test_{uuid.uuid4().hex[:16]}"
    with postgres_admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = postgres_server_url().set(database=name).render_as_string(hide_password=False)
    try:
        upgrade_database(url)
        yield url
    finally:
        with postgres_admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
def ledger(database_url: str) -> Iterator[Ledger]:
    """A Ledger on the migrated `database_url`, signing as the test suite's worker does."""
    instance = Ledger.from_url(database_url, signer=TEST_SIGNER)
    yield instance
    instance.engine.dispose()
