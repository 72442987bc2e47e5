from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from random import Random

import pytest

from sagas import InvalidRequestError
from sagas.audit import GENESIS_HASH, AuditStore, VerifyResult, open_audit_store, take_checkpoint
from tests.audit._chain import fill
from tests.fixtures_audit import TEST_KEYS


def test_an_empty_store(store: AuditStore) -> None:
    assert store.head() is None
    assert store.records() == []
    assert store.find("nothing") is None
    assert store.verify() == VerifyResult(ok=True, records=0, first_bad_sequence=None, problem=None)
    assert take_checkpoint(store).sequence == 0
    assert take_checkpoint(store).hash == GENESIS_HASH


def test_appended_records_form_a_chain(store: AuditStore) -> None:
    first = store.append(kind="terminal", saga_id="s1", dedupe_key="k1", payload={"a": 1})
    second = store.append(kind="operator_retry", saga_id="s2", dedupe_key="k2", payload={})
    third = store.append(kind="operator_resolve", saga_id="s1", dedupe_key="k3", payload={})

    assert [r.sequence for r in (first, second, third)] == [1, 2, 3]
    assert first.prev_hash == GENESIS_HASH
    assert second.prev_hash == first.hash
    assert third.prev_hash == second.hash
    assert store.records() == [first, second, third]
    assert store.records(saga_id="s1") == [first, third]
    assert store.head() == third
    assert store.find("k2") == second
    assert store.verify(take_checkpoint(store)).ok


def test_records_read_back_exactly_as_appended(store: AuditStore) -> None:
    written = fill(store, 5, Random(1))

    assert store.records() == written
    assert [store.find(r.dedupe_key) for r in written] == written


def test_another_store_on_the_same_spec_sees_the_records(store_spec: str) -> None:
    writer, reader = (
        open_audit_store(store_spec, TEST_KEYS),
        open_audit_store(store_spec, TEST_KEYS),
    )
    try:
        assert reader.head() is None
        written = fill(writer, 3, Random(2))
        assert reader.records() == written
        assert reader.append(kind="k", saga_id="s", dedupe_key="d", payload={}).sequence == 4
        assert writer.head() == reader.head()
    finally:
        writer.close_connections()
        reader.close_connections()


def test_a_closed_store_can_be_used_again(store: AuditStore) -> None:
    written = fill(store, 2, Random(3))
    store.close_connections()

    assert store.records() == written
    assert store.append(kind="k", saga_id="s", dedupe_key="d", payload={}).sequence == 3


def test_an_append_is_idempotent_by_dedupe_key(store: AuditStore) -> None:
    first = store.append(kind="terminal", saga_id="s", dedupe_key="k", payload={"try": 1})

    again = store.append(kind="terminal", saga_id="s", dedupe_key="k", payload={"try": 2})

    assert again == first
    assert store.records() == [first]


def test_twenty_concurrent_appends_with_one_key_make_one_record(store: AuditStore) -> None:
    def append(attempt: int) -> object:
        return store.append(kind="terminal", saga_id="s", dedupe_key="k", payload={"n": attempt})

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(append, range(20)))

    records = store.records()
    assert len(records) == 1
    assert all(result == records[0] for result in results)


def test_a_refused_append_writes_nothing(store: AuditStore) -> None:
    with pytest.raises(InvalidRequestError):
        store.append(kind="", saga_id="s", dedupe_key="k", payload={})
    with pytest.raises(InvalidRequestError):
        store.append(kind="k", saga_id="s", dedupe_key="k", payload={"x": float("inf")})

    assert store.records() == []
