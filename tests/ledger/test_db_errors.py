from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg.errors
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from sagas import (
    ConnectionDroppedError,
    DatabaseBusyError,
    DeadlockError,
    SerializationFailureError,
    TransientError,
)
from sagas.foundations import make_engine, translate_db_errors
from sagas.ledger import Ledger


def raise_translated(exc: Exception) -> None:
    with translate_db_errors():
        raise exc


@pytest.mark.parametrize(
    ("orig", "expected"),
    [
        (psycopg.errors.DeadlockDetected("deadlock detected"), DeadlockError),
        (psycopg.errors.SerializationFailure("could not serialize"), SerializationFailureError),
        (psycopg.errors.LockNotAvailable("lock not available"), DatabaseBusyError),
        (psycopg.errors.QueryCanceled("canceling statement due to timeout"), DatabaseBusyError),
        (
            psycopg.errors.IdleInTransactionSessionTimeout("idle-in-transaction timeout"),
            ConnectionDroppedError,
        ),
        (psycopg.errors.AdminShutdown("terminating connection"), ConnectionDroppedError),
        (psycopg.OperationalError("connection refused"), ConnectionDroppedError),
        (sqlite3.OperationalError("database is locked"), DatabaseBusyError),
    ],
)
def test_transient_faults_become_transient_errors(
    orig: Exception, expected: type[TransientError]
) -> None:
    with pytest.raises(expected) as raised:
        raise_translated(OperationalError("SELECT 1", {}, orig))

    assert isinstance(raised.value.__cause__, OperationalError)


def test_a_pool_timeout_is_busy() -> None:
    with pytest.raises(DatabaseBusyError):
        raise_translated(PoolTimeoutError("QueuePool limit reached"))


@pytest.mark.parametrize(
    "exc",
    [
        IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE constraint failed")),
        OperationalError("SELECT", {}, sqlite3.OperationalError("no such table: account")),
        ValueError("not a database error"),
    ],
)
def test_other_errors_pass_through(exc: Exception) -> None:
    with pytest.raises(type(exc)):
        raise_translated(exc)


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("sqlstate", "expected"),
    [
        ("40P01", DeadlockError),
        ("40001", SerializationFailureError),
        ("55P03", DatabaseBusyError),
        ("57014", DatabaseBusyError),
        ("25P03", ConnectionDroppedError),
    ],
)
def test_postgres_sqlstates_are_translated(
    postgres_url: str, sqlstate: str, expected: type[TransientError]
) -> None:
    engine = make_engine(postgres_url)
    statement = f"DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '{sqlstate}'; END $$"
    try:
        with pytest.raises(expected), translate_db_errors(), engine.begin() as connection:
            connection.exec_driver_sql(statement)
    finally:
        engine.dispose()


def test_a_locked_sqlite_database_is_busy(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    impatient = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})
    try:
        with pytest.raises(DatabaseBusyError), translate_db_errors(), impatient.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (1)"))
    finally:
        impatient.dispose()
        holder.close()


def test_an_unreachable_postgres_server_is_a_dropped_connection() -> None:
    ledger = Ledger.from_url("postgresql://postgres@127.0.0.1:1/fundsaga")
    try:
        with pytest.raises(ConnectionDroppedError):
            ledger.accounts()
    finally:
        ledger.engine.dispose()
