from __future__ import annotations

import itertools
import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sagas.audit import AuditStore, open_audit_store
from tests.audit._writers import PER_WRITER, append_many
from tests.fixtures_audit import TEST_KEYS

# row locks on PostgreSQL, one writer on SQLite.
pytestmark = [pytest.mark.databases_differ, pytest.mark.slow]

WRITERS = 16


def assert_one_unbroken_chain(store: AuditStore, expected: int) -> None:
    records = store.records()
    assert [r.sequence for r in records] == list(range(1, expected + 1))
    assert len({r.dedupe_key for r in records}) == expected
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
    result = store.verify()
    assert result.ok, result.problem
    assert result.records == expected


def test_sixteen_threads_never_fork_the_chain(store: AuditStore) -> None:
    with ThreadPoolExecutor(WRITERS) as pool:
        sequences = list(pool.map(lambda w: append_many(store, f"t{w}"), range(WRITERS)))

    assert sorted(s for batch in sequences for s in batch) == list(range(1, 401))
    assert_one_unbroken_chain(store, WRITERS * PER_WRITER)


@pytest.fixture(params=["dir", "sqlite"])
def local_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The stores whose locking is the file system's (PostgreSQL serves processes as threads)."""
    if request.param == "dir":
        return f"dir:{tmp_path / 'audit'}"
    url: str = request.getfixturevalue("sqlite_url")
    return url


def test_four_processes_of_four_threads_never_fork_the_chain(local_spec: str) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        batches = pool.starmap(_process_writer, [(local_spec, p) for p in range(4)])

    assert sorted(s for batch in batches for s in batch) == list(range(1, 401))
    store = open_audit_store(local_spec, TEST_KEYS)
    try:
        assert_one_unbroken_chain(store, WRITERS * PER_WRITER)
    finally:
        store.close_connections()


def _process_writer(spec: str, process: int) -> list[int]:
    store = open_audit_store(spec, TEST_KEYS)
    try:
        with ThreadPoolExecutor(4) as pool:
            batches = pool.map(lambda t: append_many(store, f"p{process}t{t}"), range(4))
            return [s for batch in batches for s in batch]
    finally:
        store.close_connections()
