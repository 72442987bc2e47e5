"""Database fixtures: a freshly migrated SQLite file or PostgreSQL database per test.

PostgreSQL comes from FUNDSAGA_TEST_PG_URL (default: the local server, user postgres), the
admin that creates, migrates and drops the test databases; tests connect as the worker role, or
as the owner role where they need its privileges. Both roles log in without a password (trust
authentication, or a ~/.pgpass entry). The tests skip when the server is unreachable, except
under CI=true where they fail.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest
from sqlalchemy import URL, Connection, Engine, create_engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import NullPool

from sagas.foundations import DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE, upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
ROOT = Path(__file__).resolve().parent.parent
SCHEMA_SOURCES = ("migrations", "sagas/foundations", "sagas/ledger")
"""What the migrated schema is made from: the migrations and the modules they import."""
TEMPLATE_PREFIX = "fundsaga_template_"


def schema_digest() -> str:
    """A digest of SCHEMA_SOURCES' files: a template migrated from other sources is not used."""
    digest = hashlib.sha256()
    for source in SCHEMA_SOURCES:
        for path in sorted((ROOT / source).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


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


@pytest.fixture(scope="session")
def postgres_template(postgres_admin: Engine) -> str:
    """A database migrated to head once for every test process, which each fresh database is
    copied from (CREATE DATABASE ... TEMPLATE): a copy takes a tenth of a migration's time.

    Named by `schema_digest`, so a changed migration makes a new one. The test processes of one
    run build it under an advisory lock, the first of them alone; it is built under another
    name and renamed, so that no one copies a half-migrated template."""
    name = f"{TEMPLATE_PREFIX}{schema_digest()}"
    with postgres_admin.connect() as connection:
        connection.exec_driver_sql("SELECT pg_advisory_lock(hashtext('fundsaga_template'))")
        try:
            if not _database_exists(connection, name):
                building = f"{name}_{uuid.uuid4().hex[:8]}"
                connection.exec_driver_sql(f'CREATE DATABASE "{building}"')
                upgrade_database(postgres_role_url(building))
                connection.exec_driver_sql(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
                _drop_other_templates(connection, name)
        finally:
            connection.exec_driver_sql("SELECT pg_advisory_unlock(hashtext('fundsaga_template'))")
    return name


def _database_exists(connection: Connection, name: str) -> bool:
    found = connection.exec_driver_sql("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
    return found.first() is not None


def _drop_other_templates(connection: Connection, keep: str) -> None:
    """Templates of earlier sources; one another run still copies from stays (and that run
    falls back to migrating should it find its template gone)."""
    pattern = f"{TEMPLATE_PREFIX}%"
    names = connection.exec_driver_sql(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", (pattern, keep)
    ).scalars()
    for name in list(names):
        try:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        except DBAPIError:
            continue


class NewPostgresDatabase(Protocol):
    def __call__(self, *, owner: str | None = None) -> str: ...


@pytest.fixture
def new_postgres_database(
    postgres_admin: Engine, postgres_template: str
) -> Iterator[NewPostgresDatabase]:
    """Makes fresh PostgreSQL databases migrated to head; all are dropped after the test.

    By default the admin creates them as copies of `postgres_template`, which the admin
    migrated, so that the migration handed every table to DATABASE_OWNER_ROLE; a copy is given
    what a migration grants on the database itself, which CREATE DATABASE does not copy. With
    `owner`, the database is created owned by that role and migrated connecting as it, as a
    deployment does.
    """
    names: list[str] = []

    def create(*, owner: str | None = None) -> str:
        name = f"fundsaga_test_{uuid.uuid4().hex[:16]}"
        names.append(name)
        with postgres_admin.connect() as connection:
            if owner is None and _copied(connection, name, postgres_template):
                return name
            owned_by = f' OWNER "{owner}"' if owner else ""
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"{owned_by}')
        upgrade_database(postgres_role_url(name, owner))
        return name

    try:
        yield create
    finally:
        with postgres_admin.connect() as connection:
            for name in names:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _copied(connection: Connection, name: str, template: str) -> bool:
    """Whether `name` was made as a copy of `template`; False when the template is gone."""
    try:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    except DBAPIError:
        if _database_exists(connection, template):
            raise
        return False
    connection.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{name}" TO {DATABASE_WORKER_ROLE}')
    return True


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


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per test process, which each fresh file copies."""
    path = tmp_path_factory.mktemp("sqlite-template") / "fundsaga.db"
    upgrade_database(f"sqlite:///{path}")
    return path


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    """The URL of a fresh, migrated SQLite file: a copy of `sqlite_template`."""
    path = tmp_path / "db" / "fundsaga.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


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
