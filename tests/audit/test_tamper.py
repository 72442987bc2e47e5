"""The tamper suite: every mutation of the stored chain is found, at the right record."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sagas.audit import AuditStore, open_audit_store, take_checkpoint
from tests.audit._chain import fill
from tests.audit._tamper import FIGURES, Storage, mutations, storage_for
from tests.fixtures_audit import TEST_KEYS

pytestmark = pytest.mark.slow

CHAIN_LENGTH = 30
SEED = int(os.environ.get("FUNDSAGA_TAMPER_SEED", random.randrange(2**32)))


@pytest.fixture
def target(store_spec: str, insider_spec: str) -> Iterator[tuple[AuditStore, Storage[Any]]]:
    store = open_audit_store(store_spec, TEST_KEYS)
    storage = storage_for(insider_spec)
    yield store, storage
    storage.close_connections()
    store.close_connections()


@contextmanager
def connections_closed(store: AuditStore) -> Iterator[AuditStore]:
    try:
        yield store
    finally:
        store.close_connections()


def test_every_mutation_is_detected_at_the_first_bad_record(
    target: tuple[AuditStore, Storage[Any]],
) -> None:
    store, storage = target
    rng = random.Random(SEED)
    chain = fill(store, CHAIN_LENGTH, rng)
    checkpoint = take_checkpoint(store)
    original = storage.read()
    counts: Counter[str] = Counter()
    wrong: list[str] = []

    for mutation in mutations(storage, chain, rng):
        storage.write(mutation.items)
        result = store.verify(checkpoint if mutation.with_checkpoint else None)
        counts[mutation.kind] += 1
        if result.ok or result.first_bad_sequence != mutation.first_bad_sequence:
            wrong.append(f"{mutation.description}: got {result}")
    storage.write(original)

    assert counts == FIGURES
    assert wrong == [], f"seed {SEED}: {len(wrong)} of {counts.total()} wrong: {wrong[:5]}"
    assert store.verify(checkpoint).ok, f"seed {SEED}"
    assert store.records() == chain


def test_an_intact_store_verifies_clean(store: AuditStore) -> None:
    fill(store, CHAIN_LENGTH, random.Random(SEED))

    result = store.verify(take_checkpoint(store))

    assert (result.ok, result.records, result.first_bad_sequence, result.problem) == (
        True,
        CHAIN_LENGTH,
        None,
        None,
    )


def test_an_unreadable_record_is_left_out_and_named_by_verify(
    target: tuple[AuditStore, Storage[Any]], store_spec: str
) -> None:
    writer, storage = target
    chain = fill(writer, 3, random.Random(SEED))
    items = storage.read()
    storage.write(items | {2: storage.garbage(items[2])})

    with connections_closed(open_audit_store(store_spec, TEST_KEYS)) as store:
        assert store.records() == [chain[0], chain[2]]
        assert store.find(chain[1].dedupe_key) is None
        result = store.verify()
        assert result.first_bad_sequence == 2
        assert (result.problem or "").startswith("record 2 cannot be read")
        assert store.append(kind="k", saga_id="s", dedupe_key="d", payload={}).sequence == 4


def test_nothing_is_appended_after_an_unreadable_head(
    target: tuple[AuditStore, Storage[Any]], store_spec: str
) -> None:
    writer, storage = target
    fill(writer, 3, random.Random(SEED))
    items = storage.read()
    storage.write(items | {3: storage.garbage(items[3])})

    with connections_closed(open_audit_store(store_spec, TEST_KEYS)) as store:
        with pytest.raises(ValueError, match="record 3 cannot be read"):
            store.append(kind="k", saga_id="s", dedupe_key="d", payload={})
        with pytest.raises(ValueError, match="record 3 cannot be read"):
            store.head()
    assert len(storage.read()) == 3
