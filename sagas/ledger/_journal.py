"""Journal entries: idempotent lookup, and writing one balanced entry with its postings.

Each round trip to the database is a large part of what an entry costs its writer, so on
PostgreSQL the postings are inserted by the same statement as their entry, which hands them its
new id (a data-modifying WITH). The posting triggers read only earlier postings, and the
foreign keys are checked at the end of the statement, so the order inside it does not matter.
Transfers and settlements are in _transfer, reversals in _reversal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, insert, select, text, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from sagas.foundations import (
    KEY_LENGTH,
    EffectCompensatedError,
    InvalidRequestError,
    Money,
    UtcDateTime,
    not_before,
)
from sagas.ledger._chain import PostingContent, content_hash
from sagas.ledger._clock import advance_transaction_now, keep_transaction_now, transaction_now
from sagas.ledger._models import Account, JournalEntry, Posting
from sagas.ledger._signing import entry_message, signer_of
from sagas.ledger._views import EntryKind, EntryView, PostingView, entry_view

AccountLeg = tuple[Account, int]
"""A locked account and the signed minor units an entry moves on it."""

_ENTRIES = cast(Table, JournalEntry.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
_MOVE_ACCOUNT = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.account_id == bindparam("moved_id"))
    .values(balance=bindparam("balance"), updated_at=bindparam("updated_at"))
)
_ENTRY_ID_BY_KEY = select(_ENTRIES.c.entry_id).where(_ENTRIES.c.idempotency_key == bindparam("key"))
_ENTRY_ID_AND_NOW = select(
    _ENTRY_ID_BY_KEY.scalar_subquery(), func.clock_timestamp(type_=UtcDateTime())
)
"""On PostgreSQL the key's lookup reads the database's time too (see keep_transaction_now)."""
_ENTRY_BY_KEY = select(JournalEntry).where(JournalEntry.idempotency_key == bindparam("key"))
_REVERSAL_OF = select(JournalEntry).where(JournalEntry.reverses_entry_id == bindparam("entry_id"))
"""Hot-path lookups built once (their SQL cache key with them); the values travel as parameters."""
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


def check_key(key: str, field: str = "key") -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= KEY_LENGTH:
        raise InvalidRequestError(field, f"must be a string of 1-{KEY_LENGTH} characters")
    if not key.isprintable():
        raise InvalidRequestError(field, "must not contain control characters")


def check_amount(amount: Money, field: str = "amount") -> None:
    if not isinstance(amount, Money):
        raise InvalidRequestError(field, "must be Money")
    if amount.minor <= 0:
        raise InvalidRequestError(field, "must be greater than zero")


def find_entry(session: Session, key: str) -> JournalEntry | None:
    """The entry written under `key`: one index lookup when there is none (the usual case),
    the entry with its postings loaded when there is."""
    if session.get_bind().dialect.name == "postgresql":
        entry_id, now = session.execute(_ENTRY_ID_AND_NOW, {"key": key}).one()
        keep_transaction_now(session, now)
    else:
        entry_id = session.execute(_ENTRY_ID_BY_KEY, {"key": key}).scalar()
    if entry_id is None:
        return None
    return session.scalars(_ENTRY_BY_KEY, {"key": key}).one_or_none()


def replay(
    session: Session,
    existing: JournalEntry,
    kind: str,
    legs: Sequence[tuple[str, int]] | None = None,
) -> EntryView:
    """The entry already written under a key, if it is the one this request would write.

    An entry compensated since (reversed, or a void marker that took its key first) raises
    EffectCompensatedError: an undone effect is never reported as done.
    """
    if existing.kind == EntryKind.VOID_MARKER:
        raise EffectCompensatedError(
            f"{existing.idempotency_key!r} was compensated before it was written: not written now"
        )
    written = sorted((p.account_id, p.amount) for p in existing.postings)
    if existing.kind != kind or (legs is not None and written != sorted(legs)):
        raise InvalidRequestError(
            "key",
            f"{existing.idempotency_key!r} was already used by a different {existing.kind} entry",
        )
    reversal = reversal_of(session, existing)
    if reversal is not None:
        raise EffectCompensatedError(
            f"{existing.idempotency_key!r} was reversed by {reversal.idempotency_key!r}"
        )
    return entry_view(existing)


def reversal_of(session: Session, original: JournalEntry) -> JournalEntry | None:
    reversal: JournalEntry | None = session.scalars(
        _REVERSAL_OF, {"entry_id": original.entry_id}
    ).one_or_none()
    return reversal


def post_entry(
    session: Session,
    *,
    key: str,
    kind: str,
    saga_id: str | None,
    legs: Sequence[AccountLeg],
    reverses_entry_id: int | None = None,
) -> EntryView:
    """Write one balanced entry and move its customer accounts' balances.

    The entry is hashed and signed on its own: it waits on no row but its customer accounts'
    (locked by the caller), and the sealer gives it its place in the chain later. Its time is
    the database's, never before the latest movement of those accounts. The entry and its
    postings are inserted with prebuilt Core statements: the ORM's unit of work was the
    largest single cost of a ledger step.
    """
    totals: dict[str, int] = {}
    for account, minor in legs:
        totals[account.currency] = totals.get(account.currency, 0) + minor
    if any(totals.values()):
        raise ValueError(f"postings of {key!r} do not sum to zero per currency: {totals}")
    postings = _postings_with_balances(legs)
    created_at = not_before(
        transaction_now(session),
        max((a.updated_at for a, _ in legs if not a.is_system), default=None),
    )
    advance_transaction_now(session, created_at)
    digest = content_hash(
        key=key,
        saga_id=saga_id,
        kind=kind,
        reverses_entry_id=reverses_entry_id,
        created_at=created_at,
        postings=postings,
    )
    signer = signer_of(session)
    connection = session.connection()
    entry_id = insert_entry(
        connection,
        {
            "key_id": None if signer is None else signer.key_id,
            "signature": None if signer is None else signer.sign(entry_message(digest)),
            "idempotency_key": key,
            "saga_id": saga_id,
            "kind": kind,
            "reverses_entry_id": reverses_entry_id,
            "created_at": created_at,
            "sequence": None,
            "prev_hash": None,
            "entry_hash": digest,
        },
        postings,
    )
    session.flush()  # a hold the entry consumes releases its amount first: the row's checks
    _move_accounts(connection, legs, created_at)
    return EntryView(
        entry_id=entry_id,
        idempotency_key=key,
        saga_id=saga_id,
        kind=kind,
        reverses_entry_id=reverses_entry_id,
        postings=tuple(PostingView(a.account_id, Money.of(m, a.currency)) for a, m in legs),
        created_at=created_at,
        sequence=None,
        entry_hash=digest,
    )


def _postings_with_balances(legs: Sequence[AccountLeg]) -> list[PostingContent]:
    """Each leg with the balance its customer account reaches, legs on one account applied in
    order; a system account's leg is a delta with no running balance."""
    running: dict[str, int] = {}
    postings: list[PostingContent] = []
    for account, minor in legs:
        if account.is_system:
            postings.append((account.account_id, account.currency, minor, None))
            continue
        after = running.get(account.account_id, account.balance) + minor
        running[account.account_id] = after
        postings.append((account.account_id, account.currency, minor, after))
    return postings


def _move_accounts(connection: Connection, legs: Sequence[AccountLeg], at: datetime) -> None:
    """Apply the legs to their customer accounts in one statement, and to the loaded rows as
    what is stored (the unit of work of the ORM, per row, was a large part of an entry's cost).
    A system account's row never changes."""
    balances: dict[str, tuple[Account, int]] = {}
    for account, minor in legs:
        if not account.is_system:
            _, before = balances.get(account.account_id, (account, account.balance))
            balances[account.account_id] = (account, before + minor)
    if not balances:
        return
    connection.execute(
        _MOVE_ACCOUNT,
        [
            {"moved_id": account_id, "balance": balance, "updated_at": at}
            for account_id, (_, balance) in balances.items()
        ],
    )
    for account, balance in balances.values():
        set_committed_value(account, "balance", balance)
        set_committed_value(account, "updated_at", at)


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
