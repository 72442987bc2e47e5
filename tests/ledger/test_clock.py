"""Two workers whose clocks are an hour apart write to one ledger: entries, holds and accounts
are stamped by the database's clock (PostgreSQL), and the journal's times never go backwards
(on SQLite too, whose clock is the writing host's: there the workers are 20 s apart, since
SQLite refuses a time more than a minute from its host's clock)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, func, select

from sagas.foundations import HostClock, make_engine
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER
from tests.ledger._money import eur

HOUR = timedelta(hours=1)
SQLITE_SKEW = timedelta(seconds=20)
"""Within the minute SQLite's trigger allows either way of its host's clock."""


def skewed(by: timedelta) -> HostClock:
    return lambda: datetime.now(UTC) + by


@contextmanager
def workers_on(url: str) -> Iterator[tuple[Ledger, Ledger]]:
    """The database at `url` as seen by a worker ahead and one behind: an hour each on
    PostgreSQL, whose server stamps, 20 s on SQLite."""
    skew = SQLITE_SKEW if url.startswith("sqlite") else HOUR
    ahead = Ledger.from_url(url, signer=TEST_SIGNER, clock=skewed(skew))
    behind = Ledger.from_url(url, signer=TEST_SIGNER, clock=skewed(-skew))
    try:
        yield ahead, behind
    finally:
        ahead.close_connections()
        behind.close_connections()


def server_now(engine: Engine) -> datetime:
    with engine.connect() as connection:
        now: datetime = connection.execute(select(func.clock_timestamp())).scalar_one()
    return now


def write_alternately(ahead: Ledger, behind: Ledger) -> None:
    ahead.open_account("alice", "EUR", opening_balance=eur(10_000))
    behind.open_account("bob", "EUR")
    for n in range(6):
        writer = (ahead, behind)[n % 2]
        writer.transfer(f"t-{n}", "alice", "bob", eur(10), saga_id=f"s-{n}")
        writer.place_hold(f"h-{n}", "alice", eur(5), saga_id=f"s-{n}")
        (behind, ahead)[n % 2].void_hold(f"h-{n}", saga_id=f"s-{n}")


def test_the_journal_times_never_go_backwards_whatever_the_writers_clocks(
    database_url: str,
) -> None:
    with workers_on(database_url) as (ahead, behind):
        write_alternately(ahead, behind)

        times = [entry.created_at for entry in ahead.entries()]  # all of alice's, as written
        assert len(times) == 7  # alice's opening and six transfers
        assert times == sorted(times)
        assert ahead.check_invariants() == []


@pytest.mark.postgres
def test_on_postgresql_every_row_has_the_database_servers_time(postgres_url: str) -> None:
    database = make_engine(postgres_url)
    before = server_now(database)

    with workers_on(postgres_url) as (ahead, behind):
        write_alternately(ahead, behind)
        entries, holds = ahead.entries(), ahead.holds()

    after = server_now(database)
    database.dispose()
    stamps = [e.created_at for e in entries]
    stamps += [t for h in holds for t in (h.created_at, h.closed_at) if t is not None]
    assert len(stamps) == 7 + 12
    assert all(before <= stamp <= after for stamp in stamps)
