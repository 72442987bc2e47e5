"""The sealer: gives each committed, unsealed journal entry the next place in the sealed chain.

Only the sealer locks the chain's head, so writers never wait on it and sealers wait only on
each other. It seals in entry id order what its snapshot sees committed; an entry that commits
later with a lower id is sealed on the next run, after the ones already sealed. The order of
one customer account's entries is kept either way: they were written one after the other
under its row lock, with rising ids.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, bindparam, exists, func, insert, select
from sqlalchemy.orm import Session

from sagas.ledger._chain import ChainLink, lock_head, move_head, seal_hash
from sagas.ledger._models import JournalEntry, JournalSeal

_UNSEALED = (
    select(JournalEntry.entry_id, JournalEntry.entry_hash)
    .where(~exists().where(JournalSeal.entry_id == JournalEntry.entry_id))
    .order_by(JournalEntry.entry_id)
    .limit(bindparam("limit"))
)
_INSERT_SEAL = insert(cast(Table, JournalSeal.__table__))


def seal(session: Session, limit: int) -> int:
    """Seal at most `limit` entries, oldest first, in this transaction; how many it sealed."""
    connection = session.connection()
    sequence, prev_hash = lock_head(connection)
    links: list[dict[str, object]] = []
    last: ChainLink | None = None
    for entry_id, digest in connection.execute(_UNSEALED, {"limit": limit}):
        sequence += 1
        last = ChainLink(sequence, prev_hash, seal_hash(sequence, prev_hash, digest))
        links.append(
            {
                "sequence": sequence,
                "entry_id": entry_id,
                "prev_hash": prev_hash,
                "chain_hash": last.chain_hash,
            }
        )
        prev_hash = last.chain_hash
    if last is None:
        return 0
    connection.execute(_INSERT_SEAL, links)
    move_head(connection, last)
    return len(links)


def unsealed_count(session: Session) -> int:
    """Entries written but not sealed yet."""
    query = (
        select(func.count())
        .select_from(JournalEntry)
        .where(~exists().where(JournalSeal.entry_id == JournalEntry.entry_id))
    )
    return int(session.scalar(query) or 0)
