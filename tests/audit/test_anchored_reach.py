"""How far anchors taken before the retention ended reach: only anchors taken by then, still
matching their chain, and before the first anchor record the store's verification rejects."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sagas.audit import AnchorStore, open_audit_store
from sagas.audit._record import seal
from sagas.foundations import HostClock
from sagas.ledger import JOURNAL_CHAIN
from sagas.verify import AnchoredReach, anchored_reach
from tests.audit._tamper import storage_for
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

DAY = timedelta(days=1)
JOURNAL = {3: "a" * 64, 7: "b" * 64}
"""The journal's sealed hashes at the sequences the anchors name."""


def anchors_at(path: Path, *taken: tuple[timedelta, int]) -> AnchorStore:
    """A directory anchor store with a journal anchor at each (age, sequence), in order."""
    for age, sequence in taken:
        clocked = open_audit_store(f"dir:{path}", TEST_KEYS, clock=aged(age))
        AnchorStore(clocked).anchor_chain(JOURNAL_CHAIN, sequence, JOURNAL[sequence])
    return AnchorStore(open_audit_store(f"dir:{path}", TEST_KEYS))


def now() -> datetime:
    return datetime.now(UTC)


def aged(age: timedelta) -> HostClock:
    return lambda: now() - age


def reach(anchors: AnchorStore, journal: dict[int, str] = JOURNAL) -> AnchoredReach:
    return anchored_reach(anchors, now() - DAY, journal_hash_at=journal.get, records=[])


def test_only_anchors_taken_before_the_retention_ended_reach(tmp_path: Path) -> None:
    anchors = anchors_at(tmp_path, (3 * DAY, 3), (timedelta(hours=1), 7))

    assert reach(anchors).journal == 3


def test_the_first_anchor_after_the_retention_ended_bounds_the_margin(tmp_path: Path) -> None:
    """Entries 4 to 7 were sealed before an anchor taken after the retention ended: maybe
    before its end, maybe after; no anchor after it, no margin."""
    journal_also = JOURNAL | {9: "d" * 64}
    anchors = anchors_at(tmp_path, (3 * DAY, 3), (timedelta(hours=2), 7))
    later = open_audit_store(f"dir:{tmp_path}", TEST_KEYS, clock=aged(timedelta(hours=1)))
    AnchorStore(later).anchor_chain(JOURNAL_CHAIN, 9, journal_also[9])
    anchors = AnchorStore(open_audit_store(f"dir:{tmp_path}", TEST_KEYS))

    assert reach(anchors, journal_also).journal_margin == 7
    assert reach(anchors_at(tmp_path / "early", (3 * DAY, 3))).journal_margin == 0


def test_an_anchor_that_no_longer_matches_its_chain_does_not_reach(tmp_path: Path) -> None:
    anchors = anchors_at(tmp_path, (3 * DAY, 3), (2 * DAY, 7))

    assert reach(anchors).journal == 7
    assert reach(anchors, {3: JOURNAL[3], 7: "c" * 64}).journal == 3


def test_without_a_retention_nothing_reaches(tmp_path: Path) -> None:
    anchors = anchors_at(tmp_path, (3 * DAY, 3))

    unknown = anchored_reach(anchors, None, journal_hash_at=JOURNAL.get, records=[])

    assert unknown == AnchoredReach()


def test_an_anchor_stamped_before_the_one_it_follows_counts_for_nothing(tmp_path: Path) -> None:
    """Signed with the worker's key and chained, but stamped back past the newest anchor."""
    anchors = anchors_at(tmp_path, (3 * DAY, 3), (timedelta(hours=1), 7))
    head = open_audit_store(f"dir:{tmp_path}", TEST_KEYS).head()
    assert head is not None
    forged = seal(
        sequence=head.sequence + 1,
        recorded_at=now() - 2 * DAY,
        kind="anchor",
        saga_id=JOURNAL_CHAIN,
        dedupe_key=f"anchor:{JOURNAL_CHAIN}:7",
        payload={"sequence": 7, "hash": JOURNAL[7]},
        prev_hash=head.hash,
        signer=TEST_SIGNER,
    )
    storage = storage_for(f"dir:{tmp_path}")
    storage.write(storage.read() | {head.sequence + 1: storage.encode(forged)})

    assert reach(anchors).journal == 3
    assert anchors.verify().first_bad_sequence == head.sequence + 1
