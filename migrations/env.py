"""Alembic environment: one history for SQLite and PostgreSQL.

The URL is the `sqlalchemy.url` option when set in code (`sagas.foundations.upgrade_database`),
otherwise FUNDSAGA_DATABASE_URL through the application's Settings.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from sagas.audit import metadata as audit_metadata
from sagas.foundations import DatabaseTimeouts, load_settings, make_engine
from sagas.ledger import metadata as ledger_metadata
from sagas.reconcile import metadata as reconcile_metadata

config = context.config
target_metadata = [ledger_metadata, audit_metadata, reconcile_metadata]
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or load_settings().database_url


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _migrate(connection)
        return
    engine = make_engine(_url(), timeouts=DatabaseTimeouts.for_migrations())
    try:
        with engine.connect() as fresh:
            _migrate(fresh)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
