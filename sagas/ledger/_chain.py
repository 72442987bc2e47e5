"""The journal's tamper evidence: each entry's hash over its own content, and the sealed chain.

A writer hashes and signs its entry alone, holding only the rows of the customer accounts it
moves; the sealer (_sealer) later gives each committed entry the next gapless place in one
chain, hashing that place, the previous link and the entry's hash. Entries written before
revision 0011 were chained by their writer under one head lock: their own hash covers their
place, and their seal row repeats it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from pydantic import JsonValue
from sqlalchemy import Connection, Table, exists, select, update
from sqlalchemy.orm import Session

from sagas.foundations import canonical_json, sha256_hex
from sagas.ledger._models import JournalEntry, JournalHead, JournalSeal

JOURNAL_CHAIN = "ledger-journal"
"""The name the journal chain's anchors carry in the audit trail's anchor store."""
GENESIS_HASH = "0" * 64
"""The `prev_hash` of the first link."""
HEAD_ID = 1

_HEAD = cast(Table, JournalHead.__table__)
_HEAD_ROW = select(_HEAD.c.sequence, _HEAD.c.entry_hash).where(_HEAD.c.head_id == HEAD_ID)
_MOVE_HEAD = update(_HEAD).where(_HEAD.c.head_id == HEAD_ID)

PostingContent = tuple[str, str, int, int | None]
"""account_id, currency, amount, balance_after (None on a system account): what a posting
contributes to its entry's hash."""


@dataclass(frozen=True, slots=True)
class ChainLink:
    """A place in the sealed chain: its sequence number, the previous link's hash and its own."""

    sequence: int
    prev_hash: str
    chain_hash: str


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
    """The hash of an entry chained by its writer (before revision 0011): its place included."""
    content: dict[str, JsonValue] = {
        "sequence": sequence,
        "prev_hash": prev_hash,
        **_content(key, saga_id, kind, reverses_entry_id, created_at, postings),
    }
    return sha256_hex(canonical_json(content))


def content_hash(
    *,
    key: str,
    saga_id: str | None,
    kind: str,
    reverses_entry_id: int | None,
    created_at: datetime,
    postings: Sequence[PostingContent],
) -> str:
    """SHA-256 of an entry's canonical JSON: any changed field or posting changes it."""
    return sha256_hex(
        canonical_json(_content(key, saga_id, kind, reverses_entry_id, created_at, postings))
    )


def seal_hash(sequence: int, prev_hash: str, digest: str) -> str:
    """The hash of a link of the sealed chain: its place, its predecessor and its entry."""
    return sha256_hex(f"fundsaga seal {sequence} {prev_hash} {digest}")


def _content(
    key: str,
    saga_id: str | None,
    kind: str,
    reverses_entry_id: int | None,
    created_at: datetime,
    postings: Sequence[PostingContent],
) -> dict[str, JsonValue]:
    return {
        "key": key,
        "saga_id": saga_id,
        "kind": kind,
        "reverses_entry_id": reverses_entry_id,
        "created_at": created_at.astimezone(UTC).isoformat(),
        "postings": [[account, code, amount, after] for account, code, amount, after in postings],
    }


def lock_head(connection: Connection) -> tuple[int, str]:
    """The sealed chain's head, locked until the transaction ends: only the sealer takes it."""
    row = connection.execute(_HEAD_ROW.with_for_update()).one_or_none()
    if row is None:
        raise RuntimeError("the journal has no head row: run `fundsaga db upgrade`")
    return int(row.sequence), str(row.entry_hash)


def move_head(connection: Connection, link: ChainLink) -> None:
    connection.execute(_MOVE_HEAD.values(sequence=link.sequence, entry_hash=link.chain_hash))


def read_head(session: Session) -> tuple[int, str]:
    row = session.execute(_HEAD_ROW).one_or_none()
    return (0, GENESIS_HASH) if row is None else (int(row.sequence), str(row.entry_hash))


def stored_hash_at(session: Session, sequence: int) -> str | None:
    """The stored hash of the sealed chain's link at `sequence`: what its anchors name."""
    found: str | None = session.scalar(
        select(JournalSeal.chain_hash).where(JournalSeal.sequence == sequence)
    )
    return found


@dataclass
class _Walk:
    """Each customer account's running balance and latest time, in the order entries apply."""

    balances: dict[str, int] = field(default_factory=dict)
    times: dict[str, datetime] = field(default_factory=dict)

    def apply(self, where: str, row: JournalEntry) -> Iterator[str]:
        for posting in row.postings:
            account = posting.account_id
            if posting.balance_after is None:
                if not account.startswith("@"):
                    yield f"{where}: its posting on {account} carries no running balance"
                continue
            before = self.balances.get(account, 0)
            if posting.balance_after != before + posting.amount:
                yield (
                    f"{where}: {account} goes from {before} by {posting.amount} "
                    f"to {posting.balance_after}: its running balance was altered"
                )
            self.balances[account] = posting.balance_after
            latest = self.times.get(account)
            if latest is not None and row.created_at < latest and not account.startswith("@"):
                yield (
                    f"{where}: stamped {row.created_at.isoformat()}, before the entry it follows "
                    f"on {account} ({latest.isoformat()}): its time goes backwards"
                )
            self.times[account] = row.created_at


def chain_findings(session: Session, *, batch: int = 1000) -> Iterator[str]:
    """Each break in the journal: sealed entries in chain order first (the first finding names
    the first bad entry), then the entries not sealed yet, in the order they were written."""
    walk = _Walk()
    expected, prev_hash = 1, GENESIS_HASH
    sealed = (
        select(JournalSeal, JournalEntry)
        .join(JournalEntry, JournalEntry.entry_id == JournalSeal.entry_id)
        .order_by(JournalSeal.sequence)
        .execution_options(yield_per=batch)
    )
    for link, row in session.execute(sealed):
        where = f"entry #{link.sequence} {row.idempotency_key!r}"
        if link.sequence != expected:
            missing = f"#{expected}" + (
                f" to #{link.sequence - 1}" if link.sequence - 1 > expected else ""
            )
            yield f"{where}: entries {missing} are missing: deleted from the journal"
        if link.prev_hash != prev_hash:
            yield f"{where}: does not link to the entry before it: the chain was cut or spliced"
        yield from _link_findings(where, link, row)
        yield from walk.apply(where, row)
        expected, prev_hash = link.sequence + 1, link.chain_hash
    head_sequence, head_hash = read_head(session)
    if (head_sequence, head_hash) != (expected - 1, prev_hash):
        yield (
            f"journal head names entry #{head_sequence}, but the chain ends at "
            f"#{expected - 1}: entries were deleted or added past the head"
        )
    unsealed = (
        select(JournalEntry)
        .where(~exists().where(JournalSeal.entry_id == JournalEntry.entry_id))
        .order_by(JournalEntry.entry_id)
        .execution_options(yield_per=batch)
    )
    for row in session.scalars(unsealed):
        where = f"unsealed entry {row.idempotency_key!r}"
        if row.sequence is not None:
            yield f"{where}: chained as #{row.sequence} but its seal is gone: deleted"
        elif recomputed(row) != row.entry_hash:
            yield f"{where}: its content or postings differ from what was hashed: rewritten"
        yield from walk.apply(where, row)


def _link_findings(where: str, link: JournalSeal, row: JournalEntry) -> Iterator[str]:
    if row.sequence is not None:
        placed = (row.sequence, row.prev_hash, row.entry_hash)
        if placed != (link.sequence, link.prev_hash, link.chain_hash):
            yield f"{where}: its place differs from the one it was chained at: reordered"
    elif link.chain_hash != seal_hash(link.sequence, link.prev_hash, row.entry_hash):
        yield f"{where}: its seal does not hash its place and entry: the seal was rewritten"
    if recomputed(row) != row.entry_hash:
        yield f"{where}: its content or postings differ from what was hashed: rewritten"


def recomputed(row: JournalEntry) -> str:
    """The entry's hash computed again from what is stored."""
    postings = [(p.account_id, p.currency, p.amount, p.balance_after) for p in row.postings]
    content = _content(
        row.idempotency_key, row.saga_id, row.kind, row.reverses_entry_id, row.created_at, postings
    )
    if row.sequence is not None and row.prev_hash is not None:
        content = {"sequence": row.sequence, "prev_hash": row.prev_hash, **content}
    return sha256_hex(canonical_json(content))
