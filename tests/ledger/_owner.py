"""What a database owner can do that the ledger's writers cannot: switch the guards off.

Used by the attack tests to rewrite the journal as a rogue administrator would, then show that
`verify_ledger` still finds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, delete, func, select, text, update

from sagas.ledger import metadata

GUARDED = (
    "account",
    "account_status_change",
    "journal_entry",
    "journal_seal",
    "posting",
    "hold",
    "journal_head",
)


@contextmanager
def guards_off(engine: Engine) -> Iterator[Connection]:
    """A transaction in which the ledger's triggers do not fire (dropped, or disabled)."""
    with engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            names = connection.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            ).scalars()
            for name in list(names):
                connection.execute(text(f'DROP TRIGGER "{name}"'))
        else:
            for table in GUARDED:
                connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
        yield connection
        if connection.dialect.name != "sqlite":
            for table in GUARDED:
                connection.execute(text(f"ALTER TABLE {table} ENABLE TRIGGER USER"))


def cut_tail(db: Connection, keep: int) -> int:
    """Delete every sealed entry after #`keep` with its seal and postings, set each customer
    account's balance to what its remaining postings sum to, and move the head back to #`keep`:
    the journal as it stood before its newest entries, consistent in itself. How many entries
    were deleted."""
    entry, posting = metadata.tables["journal_entry"], metadata.tables["posting"]
    account, head = metadata.tables["account"], metadata.tables["journal_head"]
    seal = metadata.tables["journal_seal"]
    cut = select(seal.c.entry_id).where(seal.c.sequence > keep)
    doomed = list(db.execute(cut).scalars())
    db.execute(delete(seal).where(seal.c.sequence > keep))
    db.execute(delete(posting).where(posting.c.entry_id.in_(doomed)))
    deleted = db.execute(delete(entry).where(entry.c.entry_id.in_(doomed))).rowcount
    remaining = (
        select(func.coalesce(func.sum(posting.c.amount), 0))
        .where(posting.c.account_id == account.c.account_id)
        .scalar_subquery()
    )
    db.execute(update(account).where(account.c.is_system.is_(False)).values(balance=remaining))
    last = db.execute(select(seal.c.chain_hash).where(seal.c.sequence == keep)).scalar_one()
    db.execute(update(head).values(sequence=keep, entry_hash=last))
    return deleted
