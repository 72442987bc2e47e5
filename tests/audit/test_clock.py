"""Two writers whose clocks are an hour apart append to one audit trail: a PostgreSQL store
stamps every record by its server's clock, and on every backend the times never go backwards;
a record stamped before its predecessor, forged with the worker's own key, is named by verify."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from sagas.audit import AuditRecord, AuditStore, open_audit_store, take_checkpoint
from sagas.audit._record import format_timestamp, seal
from sagas.foundations import HostClock, make_engine
from sagas.ledger import Ledger
from sagas.verify import run_compensation_audit
from tests.audit._tamper import storage_for
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

HOUR = timedelta(hours=1)
SQLITE_SKEW = timedelta(seconds=20)
"""A SQLite table refuses a time more than a minute from its host's clock (a directory keeps
whatever its writer stamps)."""


def skewed(by: timedelta) -> HostClock:
    return lambda: datetime.now(UTC) + by


@contextmanager
def writers_on(spec: str) -> Iterator[tuple[AuditStore, AuditStore]]:
    """The store as a worker ahead and one behind open it: an hour each, 20 s on SQLite."""
    skew = SQLITE_SKEW if "sqlite" in spec else HOUR
    ahead = open_audit_store(spec, TEST_KEYS, clock=skewed(skew))
    behind = open_audit_store(spec, TEST_KEYS, clock=skewed(-skew))
    try:
        yield ahead, behind
    finally:
        ahead.close_connections()
        behind.close_connections()


def append_alternately(
    ahead: AuditStore, behind: AuditStore, count: int, *, status: str = "", first: int = 0
) -> list[AuditRecord]:
    """Terminal records of sagas `first`, `first + 1`, ... written by each store in turn."""
    return [
        (ahead, behind)[n % 2].append(
            kind="terminal",
            saga_id=f"saga-{n}",
            dedupe_key=f"saga-{n}:terminal",
            payload={"status": status} if status else {},
        )
        for n in range(first, first + count)
    ]


def test_record_times_never_go_backwards_whatever_the_writers_clocks(store_spec: str) -> None:
    with writers_on(store_spec) as (ahead, behind):
        written = append_alternately(ahead, behind, 8)

        times = [record.recorded_at for record in ahead.records()]
        assert [r.sequence for r in written] == list(range(1, 9))
        assert times == sorted(times)
        assert ahead.verify().ok


@pytest.mark.postgres
def test_on_postgresql_records_and_checkpoints_have_the_database_servers_time(
    postgres_url: str,
) -> None:
    database = make_engine(postgres_url)
    with database.connect() as connection:
        before: datetime = connection.execute(select(func.clock_timestamp())).scalar_one()

    with writers_on(f"db:{postgres_url}") as (ahead, behind):
        append_alternately(ahead, behind, 8)
        stamps = [record.recorded_at for record in ahead.records()]
        stamps.append(take_checkpoint(behind).taken_at)

    with database.connect() as connection:
        after: datetime = connection.execute(select(func.clock_timestamp())).scalar_one()
    database.dispose()
    assert len(stamps) == 9
    assert all(before <= stamp <= after for stamp in stamps)


@pytest.mark.postgres
def test_on_postgresql_since_selects_the_sagas_closed_after_it_whatever_the_writers_clocks(
    postgres_url: str,
) -> None:
    ledger, database = Ledger.from_url(postgres_url), make_engine(postgres_url)
    with writers_on(f"db:{postgres_url}") as (ahead, behind):
        append_alternately(ahead, behind, 4, status="COMPENSATED")
        with database.connect() as connection:
            since: datetime = connection.execute(select(func.clock_timestamp())).scalar_one()
        append_alternately(ahead, behind, 4, status="COMPENSATED", first=4)
        report = run_compensation_audit(ledger, ahead, None, since=since)
    ledger.close_connections()
    database.dispose()

    assert [line.saga_id for line in report.sagas] == [f"saga-{n}" for n in range(4, 8)]


def test_a_record_stamped_before_its_predecessor_is_named_even_signed_by_the_worker(
    store_spec: str, insider_spec: str
) -> None:
    """Appended at the head, linked and signed with the worker's key, as a worker whose clock
    ran behind wrote it before the store took the database's time."""
    store = open_audit_store(store_spec, TEST_KEYS)
    storage: Any = storage_for(insider_spec)
    head = append_alternately(store, store, 3)[-1]
    stamped = head.recorded_at - HOUR
    forged = seal(
        sequence=4,
        recorded_at=stamped,
        kind="terminal",
        saga_id="saga-late",
        dedupe_key="saga-late:terminal",
        payload={},
        prev_hash=head.hash,
        signer=TEST_SIGNER,
    )
    storage.write(storage.read() | {4: storage.encode(forged)})

    result = store.verify()
    storage.close_connections()
    store.close_connections()

    assert (result.ok, result.first_bad_sequence) == (False, 4)
    assert result.problem == (
        f"record 4 is stamped {format_timestamp(stamped)}, before record 3 "
        f"({format_timestamp(head.recorded_at)}): its time goes backwards"
    )
