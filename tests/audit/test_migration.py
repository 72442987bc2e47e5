from __future__ import annotations

from random import Random

import pytest
from alembic import command
from sqlalchemy import Connection, inspect, text

from sagas.audit import open_audit_store
from sagas.foundations import DATABASE_WORKER_ROLE, alembic_config, make_engine
from tests.audit._chain import fill
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_db import NewPostgresDatabase, postgres_role_url

LEDGER = "2026_11_21_0001"


def schema(url: str) -> dict[str, object]:
    """The audit table, its triggers, and on PostgreSQL its function and writer grants."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                "table": inspect(connection).has_table("audit_record"),
                "triggers": _triggers(connection),
                **(_postgres_extras(connection) if connection.dialect.name != "sqlite" else {}),
            }
    finally:
        engine.dispose()


def _triggers(connection: Connection) -> set[str]:
    sqlite = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_record'"
    postgres = (
        "SELECT tgname FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid"
        " WHERE NOT tgisinternal AND relname = 'audit_record'"
    )
    query = sqlite if connection.dialect.name == "sqlite" else postgres
    return {name for (name,) in connection.execute(text(query))}


def _postgres_extras(connection: Connection) -> dict[str, object]:
    role = "SELECT count(*) FROM pg_roles WHERE rolname = :role AND NOT rolcanlogin"
    function = "SELECT count(*) FROM pg_proc WHERE proname = 'audit_record_refuse_change'"
    return {
        "role": connection.execute(text(role), {"role": "fundsaga_audit_writer"}).scalar(),
        "function": connection.execute(text(function)).scalar(),
    }


def upgraded_schema(dialect: str) -> dict[str, object]:
    server_time = "audit_record_server_time"  # revision 2026_11_28_0013: the database's time
    if dialect == "sqlite":
        return {
            "table": True,
            "triggers": {"audit_record_no_update", "audit_record_no_delete", server_time},
        }
    return {
        "table": True,
        "triggers": {"audit_record_refuse_change", server_time},
        "role": 1,
        "function": 1,
    }


def test_the_audit_migration_downgrades_and_upgrades(
    database_url: str, database_owner_url: str
) -> None:
    dialect = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    config = alembic_config(database_owner_url)
    assert schema(database_url) == upgraded_schema(dialect)

    command.downgrade(config, LEDGER)
    downgraded = schema(database_url)
    command.upgrade(config, "head")

    assert downgraded["table"] is False
    assert downgraded["triggers"] == set()
    assert downgraded.get("function", 0) == 0
    assert downgraded.get("role", 1) == 1, "the role is cluster-wide and stays"
    assert schema(database_url) == upgraded_schema(dialect)
    store = open_audit_store(database_url, TEST_KEYS)
    try:
        fill(store, 3, Random(0))
        assert store.verify().ok
    finally:
        store.close_connections()


@pytest.fixture
def second_postgres_url(new_postgres_database: NewPostgresDatabase) -> str:
    return postgres_role_url(new_postgres_database(), DATABASE_WORKER_ROLE)


@pytest.mark.postgres
def test_a_downgrade_leaves_other_databases_writing(
    postgres_owner_url: str, second_postgres_url: str
) -> None:
    command.downgrade(alembic_config(postgres_owner_url), LEDGER)

    store = open_audit_store(second_postgres_url, TEST_KEYS)
    try:
        fill(store, 2, Random(0))
        assert store.verify().ok
    finally:
        store.close_connections()
