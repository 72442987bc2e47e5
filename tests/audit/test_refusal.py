"""The storage itself refuses to change a record, whoever asks."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from random import Random

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError
from sqlalchemy.pool import NullPool

from sagas.audit import AuditStore, open_audit_store
from sagas.audit._directory import DirectoryAuditStore
from sagas.audit._files import publish
from sagas.audit._record import seal
from sagas.audit._table import TableAuditStore
from sagas.foundations import make_engine
from tests.audit._chain import fill
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

# triggers and grants refuse a change on PostgreSQL, triggers alone on SQLite.
pytestmark = pytest.mark.databases_differ

CHANGES = {
    "UPDATE": "UPDATE audit_record SET kind = 'forged'",
    "DELETE": "DELETE FROM audit_record WHERE sequence = 2",
    "TRUNCATE": "TRUNCATE audit_record",
}


def run(engine: Engine, *statements: str) -> None:
    with engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)


def rows(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        query = text("SELECT * FROM audit_record ORDER BY sequence")
        return [tuple(row) for row in connection.execute(query)]


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    store = open_audit_store(sqlite_url, TEST_KEYS)
    fill(store, 3, Random(0))
    store.close_connections()
    engine = make_engine(sqlite_url)
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_engine(postgres_url: str) -> Iterator[Engine]:
    store = open_audit_store(postgres_url, TEST_KEYS)
    fill(store, 3, Random(0))
    store.close_connections()
    engine = create_engine(postgres_url, poolclass=NullPool)
    yield engine
    engine.dispose()


@pytest.fixture
def postgres_owner_engine(postgres_engine: Engine, postgres_owner_url: str) -> Iterator[Engine]:
    """The filled database of `postgres_engine`, as the owner, who holds UPDATE and DELETE."""
    engine = create_engine(postgres_owner_url, poolclass=NullPool)
    yield engine
    engine.dispose()


@pytest.mark.parametrize("action", ["UPDATE", "DELETE"])
def test_sqlite_triggers_refuse_changes(sqlite_engine: Engine, action: str) -> None:
    before = rows(sqlite_engine)

    with pytest.raises(IntegrityError, match=f"audit_record is append-only: {action} refused"):
        run(sqlite_engine, CHANGES[action])

    assert rows(sqlite_engine) == before


@pytest.mark.postgres
@pytest.mark.parametrize("action", ["UPDATE", "DELETE", "TRUNCATE"])
def test_postgres_refuses_the_writer_role(postgres_engine: Engine, action: str) -> None:
    before = rows(postgres_engine)

    with pytest.raises(ProgrammingError, match="permission denied"):
        run(postgres_engine, "SET ROLE fundsaga_audit_writer", CHANGES[action])

    assert rows(postgres_engine) == before


@pytest.mark.postgres
@pytest.mark.parametrize("action", ["UPDATE", "DELETE", "TRUNCATE"])
def test_postgres_triggers_refuse_even_the_owner(
    postgres_owner_engine: Engine, action: str
) -> None:
    before = rows(postgres_owner_engine)

    with pytest.raises(IntegrityError, match=f"audit_record is append-only: {action} refused"):
        run(postgres_owner_engine, CHANGES[action])

    assert rows(postgres_owner_engine) == before


@pytest.mark.postgres
def test_the_writer_role_may_only_read_and_insert(postgres_engine: Engine) -> None:
    query = text("SELECT has_table_privilege('fundsaga_audit_writer', 'audit_record', :p)")
    privileges = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]
    with postgres_engine.connect() as connection:
        held = {p for p in privileges if connection.execute(query, {"p": p}).scalar()}

    assert held == {"SELECT", "INSERT"}


@pytest.mark.postgres
def test_the_postgres_store_writes_as_the_writer_role(postgres_url: str) -> None:
    store = TableAuditStore(postgres_url, TEST_KEYS)

    def delete_through_the_store() -> None:
        with store._transaction() as connection:
            connection.exec_driver_sql(CHANGES["DELETE"])

    try:
        with pytest.raises(DBAPIError, match="permission denied"):
            delete_through_the_store()
    finally:
        store.close_connections()


def test_record_files_are_read_only(tmp_path: Path) -> None:
    store = open_audit_store(f"dir:{tmp_path}", TEST_KEYS)
    fill(store, 3, Random(0))

    files = sorted(tmp_path.glob("*.json"))
    assert [f.name for f in files] == [f"{n:012d}.json" for n in (1, 2, 3)]
    assert {stat.S_IMODE(os.stat(f).st_mode) for f in files} == {0o440}


def test_a_record_file_is_never_created_twice(tmp_path: Path) -> None:
    store = open_audit_store(f"dir:{tmp_path}", TEST_KEYS)
    first, *_ = fill(store, 3, Random(0))
    before = (tmp_path / "000000000001.json").read_bytes()
    fields = first.model_dump(exclude={"hash", "key_id", "signature"})
    forged = seal(**{**fields, "kind": "forged"}, signer=TEST_SIGNER)

    with pytest.raises(FileExistsError):
        publish(tmp_path, forged)

    assert (tmp_path / "000000000001.json").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert store.verify().ok


def test_writers_that_skip_the_lock_still_never_fork_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sagas.audit._directory.locked", lambda _directory: _no_lock())
    stores = [DirectoryAuditStore(tmp_path, TEST_KEYS) for _ in range(8)]

    def append(writer: int) -> None:
        for n in range(10):
            stores[writer].append(kind="k", saga_id="s", dedupe_key=f"{writer}:{n}", payload={})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(append, range(8)))

    assert [r.sequence for r in stores[0].records()] == list(range(1, 81))
    assert stores[0].verify().ok


def test_a_store_offers_no_way_to_change_a_record(store: AuditStore) -> None:
    public = {name for name in dir(store) if not name.startswith("_")}

    assert public == {"append", "close_connections", "find", "head", "now", "records", "verify"}


class _no_lock:  # noqa: N801
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None
