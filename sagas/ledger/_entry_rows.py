"""Inserting an entry and its postings: one statement on PostgreSQL, two on SQLite.

Each round trip to the database is a large part of what an entry costs its writer, so on
PostgreSQL the postings are inserted by the same statement as their entry, which hands them its
new id (a data-modifying WITH). The posting triggers read only earlier postings, and the
foreign keys are checked at the end of the statement, so the order inside it does not matter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from sqlalchemy import Connection, Table, insert, text

from sagas.ledger._chain import PostingContent
from sagas.ledger._models import JournalEntry, Posting

_ENTRIES = cast(Table, JournalEntry.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_INSERT_ENTRY = insert(_ENTRIES)
_INSERT_POSTING = insert(_POSTINGS)
_POSTING_COLUMNS = ("entry_id", "account_id", "currency", "amount", "balance_after")
_ENTRY_COLUMNS = (
    "idempotency_key",
    "saga_id",
    "kind",
    "reverses_entry_id",
    "created_at",
    "sequence",
    "prev_hash",
    "entry_hash",
    "key_id",
    "signature",
)
_INSERT_TOGETHER = text(
    f"""WITH new_entry AS (
        INSERT INTO journal_entry ({", ".join(_ENTRY_COLUMNS)})
        VALUES ({", ".join(":" + name for name in _ENTRY_COLUMNS)}) RETURNING entry_id
    )
    INSERT INTO posting ({", ".join(_POSTING_COLUMNS)})
    SELECT new_entry.entry_id, leg.account_id, leg.currency, leg.amount, leg.balance_after
    FROM new_entry, unnest(
        CAST(:accounts AS varchar[]), CAST(:currencies AS varchar[]),
        CAST(:amounts AS bigint[]), CAST(:balances_after AS bigint[])
    ) WITH ORDINALITY AS leg(account_id, currency, amount, balance_after, n)
    ORDER BY leg.n
    RETURNING entry_id"""
)
"""The entry and its postings (legs in order, as arrays) in one statement, on PostgreSQL."""


def insert_entry(
    connection: Connection, entry: Mapping[str, object], postings: Sequence[PostingContent]
) -> int:
    """Insert the entry row and its postings; the entry's new id."""
    if postings and connection.dialect.name == "postgresql":
        return _insert_together(connection, entry, postings)
    inserted = connection.execute(_INSERT_ENTRY, dict(entry))
    entry_id = _new_id(inserted.inserted_primary_key)
    if postings:
        connection.execute(
            _INSERT_POSTING,
            [
                dict(zip(_POSTING_COLUMNS, (entry_id, *posting), strict=True))
                for posting in postings
            ],
        )
    return entry_id


def _insert_together(
    connection: Connection, entry: Mapping[str, object], postings: Sequence[PostingContent]
) -> int:
    accounts, currencies, amounts, balances_after = zip(*postings, strict=True)
    entry_id = connection.execute(
        _INSERT_TOGETHER,
        {
            **entry,
            "accounts": list(accounts),
            "currencies": list(currencies),
            "amounts": list(amounts),
            "balances_after": list(balances_after),
        },
    ).scalar()
    return entry_id if isinstance(entry_id, int) else _no_id(entry_id)


def _new_id(primary_key: Sequence[object] | None) -> int:
    """The id the database gave the row (lastrowid on SQLite, RETURNING on PostgreSQL)."""
    if primary_key is None or not isinstance(primary_key[0], int):
        return _no_id(primary_key)
    return primary_key[0]


def _no_id(primary_key: object) -> int:
    raise RuntimeError(f"the database returned no entry id: {primary_key!r}")
