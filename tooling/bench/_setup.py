"""The benchmark's ledger: a fresh migrated SQLite file or PostgreSQL database, funded."""

from __future__ import annotations

import itertools
import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import URL, create_engine, event, make_url
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

from sagas import parse_money
from sagas.audit import SigningKey
from sagas.foundations import DATABASE_WORKER_ROLE, make_engine, upgrade_database
from sagas.ledger import Ledger
from sagas.transfer import TransferRequest
from tooling.bench._config import DEFAULT_PG_URL

ACCOUNT_PAIRS = 16
OPENING_BALANCE = "100000000.00"
AMOUNT = "1.00"
CURRENCY = "EUR"


BENCH_SIGNER = SigningKey.generate()
"""Ledger rows are signed in production, so the benchmark pays for the signatures too."""


@contextmanager
def ledger_database(database: str, directory: Path) -> Iterator[str]:
    """A fresh migrated, funded ledger for one session; yields the URL its workers use.

    `sqlite`: a file in `directory`. `postgresql`: a database made for the run on the server of
    FUNDSAGA_TEST_PG_URL (or the local default), migrated by that admin, used as the worker
    role as deployments do, and dropped afterwards.
    """
    if database == "sqlite":
        yield prepare_ledger(directory)
        return
    with scratch_pg_database("fundsaga_bench") as name:
        owner_url = pg_server_url().set(database=name).render_as_string(hide_password=False)
        upgrade_database(owner_url)
        _fund(owner_url)
        worker = pg_server_url().set(database=name, username=DATABASE_WORKER_ROLE, password=None)
        yield worker.render_as_string(hide_password=False)


@contextmanager
def scratch_pg_database(prefix: str) -> Iterator[str]:
    """A database made for the run on the admin's server (its name), dropped afterwards."""
    admin = create_engine(pg_server_url(), isolation_level="AUTOCOMMIT", poolclass=NullPool)
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        yield name
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def pg_server_url() -> URL:
    url = make_url(os.environ.get("FUNDSAGA_TEST_PG_URL", DEFAULT_PG_URL))
    return url.set(drivername="postgresql+psycopg")


def prepare_ledger(directory: Path) -> str:
    """Migrate a fresh SQLite ledger in `directory`, fund the accounts; returns its URL."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("ledger.db*"):
        stale.unlink()
    url = f"sqlite:///{directory / 'ledger.db'}"
    upgrade_database(url)
    _fund(url)
    return url


def _fund(url: str) -> None:
    ledger = Ledger.from_url(url, signer=BENCH_SIGNER)
    opening = parse_money(OPENING_BALANCE, CURRENCY)
    for i in range(ACCOUNT_PAIRS):
        ledger.open_account(f"bench-src-{i:02d}", CURRENCY, opening_balance=opening)
        ledger.open_account(f"bench-dst-{i:02d}", CURRENCY)
    ledger.close_connections()


def bench_ledger(url: str, journal: str = "wal", *, signed: bool = True) -> Ledger:
    """fundsaga's ledger on `url`, its rows signed unless `signed` is False (ENGINE-NOSIGN);
    `journal="delete"` turns SQLite's WAL off to measure what it is worth."""
    signer = BENCH_SIGNER if signed else None
    if journal == "wal" or not url.startswith("sqlite"):
        return Ledger.from_url(url, signer=signer)
    engine = make_engine(url)

    def rollback_journal(connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        connection.execute(f"PRAGMA journal_mode={journal}")

    event.listen(engine, "connect", rollback_journal)
    return Ledger(engine, signer=signer)


def requests(prefix: str) -> Iterator[TransferRequest]:
    """Endless distinct transfer requests, spread over the account pairs."""
    run = uuid.uuid4().hex[:8]
    for n in itertools.count():
        pair = n % ACCOUNT_PAIRS
        yield TransferRequest.parse(
            {
                "idempotency_key": f"{prefix}-{run}-{n}",
                "source_account": f"bench-src-{pair:02d}",
                "destination_account": f"bench-dst-{pair:02d}",
                "currency": CURRENCY,
                "amount": AMOUNT,
            }
        )
