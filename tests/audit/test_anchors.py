"""Anchors kept apart from the audit store: a deleted tail and a rolled-back anchor store are
findings without any file kept by hand, on every backend."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sagas.audit import AnchoredAuditStore, AnchorStore, open_audit_store
from sagas.foundations import upgrade_database
from sagas.verify import anchor_head, verify_trail
from tests.audit._chain import fill
from tests.audit._tamper import storage_for
from tests.audit._writers import PER_WRITER, append_many
from tests.fixtures_audit import TEST_KEYS

pytestmark = pytest.mark.slow

EVERY = 5


def open_anchored(store_spec: str, anchors_dir: Path) -> AnchoredAuditStore:
    anchors = AnchorStore(open_audit_store(f"dir:{anchors_dir}", TEST_KEYS))
    return AnchoredAuditStore(open_audit_store(store_spec, TEST_KEYS), anchors, EVERY)


@pytest.fixture
def anchored(store_spec: str, tmp_path: Path) -> Iterator[AnchoredAuditStore]:
    store = open_anchored(store_spec, tmp_path / "anchors")
    yield store
    store.close_connections()


def test_the_chain_is_anchored_every_n_records_and_verifies(
    anchored: AnchoredAuditStore, tmp_path: Path
) -> None:
    chain = fill(anchored, 12, random.Random(1))

    verdict = verify_trail(anchored, None, tmp_path / "memory.json")

    latest = anchored.anchors.latest()
    assert latest is not None
    assert (latest.sequence, latest.hash) == (10, chain[9].hash)
    assert (verdict.ok, verdict.records, verdict.anchored_at) == (True, 12, 10)


def test_a_deleted_tail_is_found_against_the_anchor(
    anchored: AnchoredAuditStore, insider_spec: str, tmp_path: Path
) -> None:
    fill(anchored, 10, random.Random(2))
    storage = storage_for(insider_spec)
    storage.write({k: v for k, v in storage.read().items() if k < 9})
    storage.close_connections()

    verdict = verify_trail(anchored, None, tmp_path / "memory.json")

    assert (verdict.ok, verdict.first_bad_sequence) == (False, 9)
    assert "the checkpoint names record 10" in verdict.findings[0]


def test_a_rolled_back_anchor_store_is_found_by_the_verifier_s_memory(
    anchored: AnchoredAuditStore, store_spec: str, tmp_path: Path
) -> None:
    fill(anchored, 10, random.Random(3))
    memory = tmp_path / "memory.json"
    assert verify_trail(anchored, None, memory).ok
    anchor_files = sorted((tmp_path / "anchors").glob("*.json"))
    anchor_files[-1].unlink()

    verifier = open_anchored(store_spec, tmp_path / "anchors")  # a later run of the verifier
    verdict = verify_trail(verifier, None, memory)
    verifier.close_connections()

    assert not verdict.ok
    assert verdict.findings[0].startswith("anchor store rolled back")


def test_anchoring_by_hand_names_the_head_and_again_changes_nothing(
    anchored: AnchoredAuditStore,
) -> None:
    chain = fill(anchored, 3, random.Random(4))

    first = anchor_head(anchored)
    again = anchor_head(anchored)

    assert first is not None
    assert (first.sequence, first.hash) == (3, chain[-1].hash)
    assert again == first
    assert anchored.anchors.verify().records == 1


def test_two_writers_appending_and_anchoring_at_once_fork_neither_chain(
    store_spec: str, tmp_path: Path
) -> None:
    writers = [open_anchored(store_spec, tmp_path / "anchors") for _ in range(2)]
    try:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: append_many(writers[n % 2], f"w{n}"), range(8)))
        verdict = verify_trail(writers[0], None, tmp_path / "memory.json")
        anchors = writers[0].anchors.verify()
        latest = writers[0].anchors.latest()
    finally:
        for writer in writers:
            writer.close_connections()

    assert (verdict.ok, verdict.records) == (True, 8 * PER_WRITER)
    assert anchors.ok
    assert anchors.records == 8 * PER_WRITER // EVERY
    assert latest is not None
    assert latest.sequence == 8 * PER_WRITER


def test_an_anchor_store_in_a_database_table_anchors_and_verifies_the_same(
    store_spec: str, tmp_path: Path
) -> None:
    anchors_url = f"sqlite:///{tmp_path / 'anchors.db'}"
    upgrade_database(anchors_url)
    anchors = AnchorStore(open_audit_store(f"db:{anchors_url}", TEST_KEYS))
    store = AnchoredAuditStore(open_audit_store(store_spec, TEST_KEYS), anchors, EVERY)
    try:
        chain = fill(store, 10, random.Random(8))
        verdict = verify_trail(store, None, tmp_path / "memory.json")
        latest = anchors.latest()
    finally:
        store.close_connections()

    assert verdict.ok
    assert latest is not None
    assert (latest.sequence, latest.hash) == (10, chain[-1].hash)
