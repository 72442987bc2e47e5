"""The journal chain: every entry takes the next gapless sequence number under the head-row
lock and hashes its own content, its postings and the previous entry's hash.

A plain database sequence would leave gaps on rollback, and a gap must always mean a deleted
entry; the head row also serialises appends, so two entries never claim the same predecessor.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

from pydantic import JsonValue
from sqlalchemy import Connection, Table, select, update
from sqlalchemy.orm import Session

from sagas.foundations import HostClock, canonical_json, database_now, sha256_hex
from sagas.ledger._models import JournalEntry, JournalHead

JOURNAL_CHAIN = "ledger-journal"
"""The name the journal chain's anchors carry in the audit trail's anchor store."""
GENESIS_HASH = "0" * 64
"""The `prev_hash` of entry 1."""
HEAD_ID = 1

_HEAD = cast(Table, JournalHead.__table__)
_HEAD_ROW = select(_HEAD.c.sequence, _HEAD.c.entry_hash).where(_HEAD.c.head_id == HEAD_ID)
_MOVE_HEAD = update(_HEAD).where(_HEAD.c.head_id == HEAD_ID)


@dataclass(frozen=True, slots=True)
class ChainLink:
    """Where an entry sits in the chain: its sequence number, predecessor's hash and hash."""

    sequence: int
    prev_hash: str
    entry_hash: str


PostingContent = tuple[str, str, int, int]
"""account_id, currency, amount, balance_after: what a posting contributes to its entry hash."""


def entry_hash(
    *,
    sequence: int,
    prev_hash: str,
    key: str,
    saga_id: str | None,
    kind: str,
    reverses_entry_id: int | None,
    created_at: datetime,
    postings: Sequence[PostingContent],
) -> str:
    """SHA-256 of the entry's canonical JSON: any changed field, posting or link changes it."""
    content: dict[str, JsonValue] = {
        "sequence": sequence,
        "prev_hash": prev_hash,
        "key": key,
        "saga_id": saga_id,
        "kind": kind,
        "reverses_entry_id": reverses_entry_id,
        "created_at": created_at.astimezone(UTC).isoformat(),
        "postings": [[account, code, amount, after] for account, code, amount, after in postings],
    }
    return sha256_hex(canonical_json(content))


def lock_head(connection: Connection) -> tuple[int, str]:
    """The head's sequence number and hash, locked until the transaction ends."""
    row = connection.execute(_HEAD_ROW.with_for_update()).one_or_none()
    if row is None:
        raise RuntimeError("the journal has no head row: run `fundsaga db upgrade`")
    return int(row.sequence), str(row.entry_hash)


def entry_time(connection: Connection, head_sequence: int, host_clock: HostClock) -> datetime:
    """The time of the entry that follows the head, read while the head is locked: the
    database's clock, and never before the head entry's own time."""
    head_time = (
        select(JournalEntry.created_at)
        .where(JournalEntry.sequence == head_sequence)
        .scalar_subquery()
    )
    return database_now(connection, host_clock, after=head_time)


def move_head(connection: Connection, link: ChainLink) -> None:
    connection.execute(_MOVE_HEAD.values(sequence=link.sequence, entry_hash=link.entry_hash))


def read_head(session: Session) -> tuple[int, str]:
    row = session.execute(_HEAD_ROW).one_or_none()
    return (0, GENESIS_HASH) if row is None else (int(row.sequence), str(row.entry_hash))


def stored_hash_at(session: Session, sequence: int) -> str | None:
    found: str | None = session.scalar(
        select(JournalEntry.entry_hash).where(JournalEntry.sequence == sequence)
    )
    return found


def chain_findings(session: Session, *, batch: int = 1000) -> Iterator[str]:
    """Each break in the chain, in journal order: the first names the first bad entry."""
    expected_sequence, prev_hash = 1, GENESIS_HASH
    prev_time: datetime | None = None
    balances: dict[str, int] = {}
    query = select(JournalEntry).order_by(JournalEntry.sequence).execution_options(yield_per=batch)
    for row in session.scalars(query):
        where = f"entry #{row.sequence} {row.idempotency_key!r}"
        if row.sequence != expected_sequence:
            missing = f"#{expected_sequence}" + (
                f" to #{row.sequence - 1}" if row.sequence - 1 > expected_sequence else ""
            )
            yield f"{where}: entries {missing} are missing: deleted from the journal"
        if row.prev_hash != prev_hash:
            yield f"{where}: does not link to the entry before it: the chain was cut or spliced"
        if _recomputed(row) != row.entry_hash:
            yield f"{where}: its content or postings differ from what was hashed: rewritten"
        if prev_time is not None and row.created_at < prev_time:
            yield (
                f"{where}: stamped {row.created_at.isoformat()}, before the entry it follows "
                f"({prev_time.isoformat()}): its time goes backwards"
            )
        yield from _running_balances(where, row, balances)
        expected_sequence, prev_hash, prev_time = row.sequence + 1, row.entry_hash, row.created_at
    head_sequence, head_hash = read_head(session)
    if (head_sequence, head_hash) != (expected_sequence - 1, prev_hash):
        yield (
            f"journal head names entry #{head_sequence}, but the chain ends at "
            f"#{expected_sequence - 1}: entries were deleted or added past the head"
        )


def _recomputed(row: JournalEntry) -> str:
    return entry_hash(
        sequence=row.sequence,
        prev_hash=row.prev_hash,
        key=row.idempotency_key,
        saga_id=row.saga_id,
        kind=row.kind,
        reverses_entry_id=row.reverses_entry_id,
        created_at=row.created_at,
        postings=[(p.account_id, p.currency, p.amount, p.balance_after) for p in row.postings],
    )


def _running_balances(where: str, row: JournalEntry, balances: dict[str, int]) -> Iterator[str]:
    for posting in row.postings:
        before = balances.get(posting.account_id, 0)
        if posting.balance_after != before + posting.amount:
            yield (
                f"{where}: {posting.account_id} goes from {before} by {posting.amount} "
                f"to {posting.balance_after}: its running balance was altered"
            )
        balances[posting.account_id] = posting.balance_after
