"""The benchmark's ledger: a fresh migrated SQLite file with funded account pairs."""

from __future__ import annotations

import itertools
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.pool import ConnectionPoolEntry

from sagas import parse_money
from sagas.audit import SigningKey
from sagas.foundations import make_engine, upgrade_database
from sagas.ledger import Ledger
from sagas.transfer import TransferRequest

ACCOUNT_PAIRS = 16
OPENING_BALANCE = "100000000.00"
AMOUNT = "1.00"
CURRENCY = "EUR"


BENCH_SIGNER = SigningKey.generate()
"""Ledger rows are signed in production, so the benchmark pays for the signatures too."""


def prepare_ledger(directory: Path) -> str:
    """Migrate a fresh SQLite ledger in `directory`, fund the accounts; returns its URL."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("ledger.db*"):
        stale.unlink()
    url = f"sqlite:///{directory / 'ledger.db'}"
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=BENCH_SIGNER)
    opening = parse_money(OPENING_BALANCE, CURRENCY)
    for i in range(ACCOUNT_PAIRS):
        ledger.open_account(f"bench-src-{i:02d}", CURRENCY, opening_balance=opening)
        ledger.open_account(f"bench-dst-{i:02d}", CURRENCY)
    ledger.close_connections()
    return url


def bench_ledger(url: str, journal: str = "wal") -> Ledger:
    """fundsaga's ledger on `url`; `journal="delete"` turns WAL off to measure what it is worth."""
    if journal == "wal":
        return Ledger.from_url(url, signer=BENCH_SIGNER)
    engine = make_engine(url)

    def rollback_journal(connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        connection.execute(f"PRAGMA journal_mode={journal}")

    event.listen(engine, "connect", rollback_journal)
    return Ledger(engine, signer=BENCH_SIGNER)


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
