"""An entry as its writer hashed and signed it, and its place in the sealed chain: what a
verifier without the database needs to recompute the entry's hash and check its signature."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.ledger._chain import ChainLink, PostingContent, content_hash, entry_hash
from sagas.ledger._models import JournalEntry


@dataclass(frozen=True, slots=True)
class EntryProof:
    """One journal entry's hashed content, hash, signature and seal."""

    entry_id: int
    key: str
    saga_id: str | None
    kind: str
    reverses_entry_id: int | None
    created_at: datetime
    postings: tuple[PostingContent, ...]
    """(account, currency, amount in minor units, balance_after) in the order hashed."""
    writer_link: tuple[int, str] | None
    """(sequence, prev_hash) of an entry its writer chained (before revision 0011): its hash
    covers its place too. None for entries the sealer placed."""
    entry_hash: str
    key_id: str | None
    signature: str | None
    """The writer's Ed25519 signature of `entry_message(entry_hash)`; None when unsigned."""
    seal: ChainLink | None
    """Its link in the sealed chain; None until the sealer reaches it."""


def proof_hash(proof: EntryProof) -> str:
    """The entry's hash computed again from the proof's content alone."""
    if proof.writer_link is not None:
        sequence, prev_hash = proof.writer_link
        return entry_hash(
            sequence=sequence,
            prev_hash=prev_hash,
            key=proof.key,
            saga_id=proof.saga_id,
            kind=proof.kind,
            reverses_entry_id=proof.reverses_entry_id,
            created_at=proof.created_at,
            postings=proof.postings,
        )
    return content_hash(
        key=proof.key,
        saga_id=proof.saga_id,
        kind=proof.kind,
        reverses_entry_id=proof.reverses_entry_id,
        created_at=proof.created_at,
        postings=proof.postings,
    )


def entry_proofs(session: Session, saga_id: str) -> list[EntryProof]:
    query = (
        select(JournalEntry).where(JournalEntry.saga_id == saga_id).order_by(JournalEntry.entry_id)
    )
    return [_proof(row) for row in session.scalars(query)]


def entry_key_ids(session: Session) -> list[str]:
    """Every key id that signed a journal entry, sorted."""
    query = select(JournalEntry.key_id).where(JournalEntry.key_id.is_not(None)).distinct()
    return sorted(str(key_id) for key_id in session.scalars(query))


def _proof(row: JournalEntry) -> EntryProof:
    link = None
    if row.sequence is not None and row.prev_hash is not None:
        link = (row.sequence, row.prev_hash)
    seal = row.seal
    return EntryProof(
        entry_id=row.entry_id,
        key=row.idempotency_key,
        saga_id=row.saga_id,
        kind=row.kind,
        reverses_entry_id=row.reverses_entry_id,
        created_at=row.created_at.astimezone(UTC),
        postings=tuple((p.account_id, p.currency, p.amount, p.balance_after) for p in row.postings),
        writer_link=link,
        entry_hash=row.entry_hash,
        key_id=row.key_id,
        signature=row.signature,
        seal=None if seal is None else ChainLink(seal.sequence, seal.prev_hash, seal.chain_hash),
    )
