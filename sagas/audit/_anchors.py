"""Anchors: signed checkpoints of the audit chain, kept in a store of their own.

The anchor store is itself an append-only, hash-chained, signed audit store (a directory or a
table in another database), so it refuses change the same way and a unique sequence number
keeps it from forking. An anchor names a sequence number of the audit chain and its hash: a
truncated or rewritten audit chain no longer reaches the latest anchor.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import JsonValue

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._record import AuditRecord
from sagas.audit._store import AuditStore
from sagas.audit._verify import VerifyResult

ANCHOR_KIND = "anchor"
ANCHORED_CHAIN = "audit-chain"


class AnchorStore:
    """Signed checkpoints of the audit chain, and of other hash chains such as the ledger's
    journal, appended to their own chained store."""

    def __init__(self, chain: AuditStore) -> None:
        self._chain = chain

    def anchor(self, head: AuditRecord) -> Checkpoint:
        """Anchor the audit chain at `head`; anchoring the same sequence again changes nothing."""
        written = self._chain.append(
            kind=ANCHOR_KIND,
            saga_id=ANCHORED_CHAIN,
            dedupe_key=f"anchor:{head.sequence}",
            payload={"sequence": head.sequence, "hash": head.hash},
        )
        return _checkpoint(written)

    def anchor_chain(self, chain: str, sequence: int, head_hash: str) -> Checkpoint:
        """Anchor another chain named `chain` at its head (`sequence`, `head_hash`)."""
        if chain == ANCHORED_CHAIN:
            raise ValueError(f"{chain!r} is the audit chain: anchor it with anchor()")
        written = self._chain.append(
            kind=ANCHOR_KIND,
            saga_id=chain,
            dedupe_key=f"anchor:{chain}:{sequence}",
            payload={"sequence": sequence, "hash": head_hash},
        )
        return _checkpoint(written)

    def checkpoints(self, chain: str = ANCHORED_CHAIN) -> list[Checkpoint]:
        """Every anchor of `chain`, in the order they were written."""
        return [_checkpoint(r) for r in self._chain.records(saga_id=chain) if r.kind == ANCHOR_KIND]

    def verified_checkpoints(self, chain: str = ANCHORED_CHAIN) -> list[Checkpoint]:
        """The anchors of `chain` written before the first record the store's verification
        rejects: signed, chained, and each taken no earlier than the anchor before it, so that
        no anchor can be slipped in with a time before one already there."""
        first_bad = self._chain.verify().first_bad_sequence
        return [
            _checkpoint(record)
            for record in self._chain.records(saga_id=chain)
            if record.kind == ANCHOR_KIND and (first_bad is None or record.sequence < first_bad)
        ]

    def latest(self, chain: str = ANCHORED_CHAIN) -> Checkpoint | None:
        """The anchor that names the highest sequence number of `chain`."""
        return max(self.checkpoints(chain), key=lambda a: a.sequence, default=None)

    def latest_record(self, chain: str = ANCHORED_CHAIN) -> AuditRecord | None:
        """The signed anchor record behind `latest(chain)`, to show with the key that signed it."""
        anchors = [r for r in self._chain.records(saga_id=chain) if r.kind == ANCHOR_KIND]
        return max(anchors, key=lambda r: _checkpoint(r).sequence, default=None)

    def verify(self) -> VerifyResult:
        """The anchor store's own chain: hashes, links and signatures."""
        return self._chain.verify()

    def close_connections(self) -> None:
        self._chain.close_connections()


class AnchoredAuditStore:
    """An audit store that anchors its chain every `every` records, once each is durable.

    A retried append of an anchored record anchors it again, which changes nothing: an anchor
    missed by a crash between the two writes is made up by the retry.
    """

    def __init__(self, store: AuditStore, anchors: AnchorStore, every: int) -> None:
        self._store = store
        self.anchors = anchors
        self._every = every

    def append(
        self, *, kind: str, saga_id: str, dedupe_key: str, payload: dict[str, JsonValue]
    ) -> AuditRecord:
        record = self._store.append(
            kind=kind, saga_id=saga_id, dedupe_key=dedupe_key, payload=payload
        )
        if record.sequence % self._every == 0:
            self.anchors.anchor(record)
        return record

    def find(self, dedupe_key: str) -> AuditRecord | None:
        return self._store.find(dedupe_key)

    def records(self, *, saga_id: str | None = None) -> list[AuditRecord]:
        return self._store.records(saga_id=saga_id)

    def head(self) -> AuditRecord | None:
        return self._store.head()

    def now(self) -> datetime:
        return self._store.now()

    def verify(self, checkpoint: Checkpoint | None = None) -> VerifyResult:
        return self._store.verify(checkpoint)

    def close_connections(self) -> None:
        self._store.close_connections()
        self.anchors.close_connections()


def _checkpoint(record: AuditRecord) -> Checkpoint:
    sequence = record.payload.get("sequence")
    hashed = record.payload.get("hash")
    if not isinstance(sequence, int) or not isinstance(hashed, str):
        raise ValueError(f"anchor record {record.sequence} names no sequence and hash")
    return Checkpoint(sequence, hashed, record.recorded_at.astimezone(UTC))
