"""How far back Temporal may have forgotten: the anchors taken before its retention ended.

Temporal drops a closed history once the namespace's retention has passed since it closed.
Whether that can have happened to an entry's saga is never judged by a time the entry's
writer wrote (a worker's key signs whatever time it stamps): an entry may be past retention
only when a journal anchor taken before `read_at - retention` already names its sealed place
or a later one, and an audit record witnesses a forgotten saga only when an audit-chain anchor
taken before then names it or a later record. An anchor's time is the anchor store's (a
table's database server stamps it; see docs/audit.md for a directory), and only anchors before
the first record the store's verification rejects count, so no anchor is taken before one
already there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from sagas.audit import AnchorStore, AuditRecord, Checkpoint
from sagas.ledger import JOURNAL_CHAIN, EntryView

HashAt = Callable[[int], str | None]
"""The stored hash at a sequence number of a chain (None when there is none)."""


@dataclass(frozen=True)
class AnchoredReach:
    """The highest sealed journal entry and audit record that anchors taken before `before`
    name: what existed before the namespace's retention ended. Nothing when no anchor was
    taken that early, or the retention is unknown."""

    journal: int = 0
    audit: int = 0
    before: datetime | None = None
    """The moment the retention ended (Temporal's read time less the retention)."""
    journal_margin: int = 0
    """The sequence the first journal anchor taken after `before` names (0 when none): an
    entry past `journal` and up to it was sealed before that anchor, maybe before the
    retention ended, maybe after. Its saga may be gone or may be young; it is not judged
    until a later run finds that anchor before the retention's end."""
    audit_margin: int = 0
    """The same for the audit chain."""

    def may_be_forgotten(self, entry: EntryView) -> bool:
        """Whether Temporal may have dropped the history of the saga that wrote `entry`: it
        was sealed, and anchored, before the retention ended. Unsealed or unanchored entries
        are young: Temporal must still hold their saga."""
        return entry.sequence is not None and entry.sequence <= self.journal

    def witnesses_past_retention(self, record: AuditRecord) -> bool:
        """Whether `record` was anchored before the retention ended."""
        return record.sequence <= self.audit

    def in_the_margin(self, entry: EntryView) -> bool:
        """Whether `entry` was sealed between the last journal anchor before the retention
        ended and the first after it: when, no time the writer wrote can say."""
        return entry.sequence is not None and self.journal < entry.sequence <= self.journal_margin

    def record_in_the_margin(self, record: AuditRecord) -> bool:
        """The same for an audit record, between the audit chain's anchors."""
        return self.audit < record.sequence <= self.audit_margin

    def describe(self) -> str:
        """Why an entry this reach does not cover is young (the same words on every run, so
        that two verifiers' findings compare)."""
        if self.before is None:
            return "the namespace's retention is unknown"
        return "no journal anchor taken before the retention ended covers it"


NOTHING_ANCHORED = AnchoredReach()


def anchored_reach(
    anchors: AnchorStore,
    before: datetime | None,
    *,
    journal_hash_at: HashAt,
    records: Iterable[AuditRecord],
) -> AnchoredReach:
    """The reach of the anchors in `anchors` taken before `before`, each anchor counted only
    while it names the hash the journal (`journal_hash_at`) or the verified audit `records`
    hold at its sequence."""
    if before is None:
        return NOTHING_ANCHORED
    audit_hashes = {record.sequence: record.hash for record in records}
    journal = list(anchors.verified_checkpoints(JOURNAL_CHAIN))
    audit = list(anchors.verified_checkpoints())
    return AnchoredReach(
        journal=_reach(journal, before, journal_hash_at),
        audit=_reach(audit, before, audit_hashes.get),
        before=before,
        journal_margin=_margin(journal, before, journal_hash_at),
        audit_margin=_margin(audit, before, audit_hashes.get),
    )


def _reach(checkpoints: Iterable[Checkpoint], before: datetime, hash_at: HashAt) -> int:
    early = sorted(
        (c for c in checkpoints if c.taken_at <= before), key=lambda c: c.sequence, reverse=True
    )
    return next((c.sequence for c in early if hash_at(c.sequence) == c.hash), 0)


def _margin(checkpoints: Iterable[Checkpoint], before: datetime, hash_at: HashAt) -> int:
    """The sequence the first matching anchor taken after `before` names; 0 when none was (a
    deployment that anchored nothing for a whole retention gets no margin: fail closed)."""
    late = [c for c in checkpoints if c.taken_at > before and hash_at(c.sequence) == c.hash]
    return min((c.sequence for c in late), default=0)
