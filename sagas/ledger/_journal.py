"""Journal entries: idempotent lookup, balanced posting, transfers and settlements.

A settlement is the postingless last word of a transfer, written only when its clearing leg
nets to zero. Reversals are in _reversal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, bindparam, insert, select
from sqlalchemy.orm import Session

from sagas.foundations import KEY_LENGTH, EffectCompensatedError, InvalidRequestError, Money
from sagas.ledger._accounts import check_active, check_can_take, check_currency, lock_accounts, move
from sagas.ledger._chain import (
    ChainLink,
    PostingContent,
    entry_hash,
    entry_time,
    lock_head,
    move_head,
)
from sagas.ledger._clock import host_clock_of
from sagas.ledger._invariants import net_effect
from sagas.ledger._models import Account, JournalEntry, Posting
from sagas.ledger._signing import entry_message, signer_of
from sagas.ledger._views import EntryKind, EntryView, PostingView, entry_view

AccountLeg = tuple[Account, int]
"""A locked account and the signed minor units an entry moves on it."""

_INSERT_ENTRY = insert(cast(Table, JournalEntry.__table__))
_INSERT_POSTING = insert(cast(Table, Posting.__table__))
_ENTRY_BY_KEY = select(JournalEntry).where(JournalEntry.idempotency_key == bindparam("key"))
_REVERSAL_OF = select(JournalEntry).where(JournalEntry.reverses_entry_id == bindparam("entry_id"))
"""Hot-path lookups built once (their SQL cache key with them); the values travel as parameters."""


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
    """Write one balanced entry at the head of the journal chain and move its accounts' balances.

    The entry and its postings are inserted with prebuilt Core statements: the ORM's unit of
    work was the largest single cost of a ledger step. The head row is locked last, after the
    accounts, so appends queue on it for as short a time as possible and in one lock order.
    The entry's time is the database's, read once the head is held (see entry_time).
    """
    totals: dict[str, int] = {}
    for account, minor in legs:
        totals[account.currency] = totals.get(account.currency, 0) + minor
    if any(totals.values()):
        raise ValueError(f"postings of {key!r} do not sum to zero per currency: {totals}")
    postings = _postings_with_balances(legs)
    connection = session.connection()
    head_sequence, head_hash = lock_head(connection)
    created_at = entry_time(connection, head_sequence, host_clock_of(session))
    link = ChainLink(
        sequence=head_sequence + 1,
        prev_hash=head_hash,
        entry_hash=entry_hash(
            sequence=head_sequence + 1,
            prev_hash=head_hash,
            key=key,
            saga_id=saga_id,
            kind=kind,
            reverses_entry_id=reverses_entry_id,
            created_at=created_at,
            postings=postings,
        ),
    )
    signer = signer_of(session)
    inserted = connection.execute(
        _INSERT_ENTRY,
        {
            "key_id": None if signer is None else signer.key_id,
            "signature": None if signer is None else signer.sign(entry_message(link.entry_hash)),
            "idempotency_key": key,
            "saga_id": saga_id,
            "kind": kind,
            "reverses_entry_id": reverses_entry_id,
            "created_at": created_at,
            "sequence": link.sequence,
            "prev_hash": link.prev_hash,
            "entry_hash": link.entry_hash,
        },
    )
    entry_id = _new_id(inserted.inserted_primary_key)
    if postings:
        connection.execute(
            _INSERT_POSTING,
            [
                {
                    "entry_id": entry_id,
                    "account_id": account_id,
                    "currency": code,
                    "amount": minor,
                    "balance_after": balance_after,
                }
                for account_id, code, minor, balance_after in postings
            ],
        )
    move_head(connection, link)
    for account, minor in legs:
        move(account, minor, created_at)
    session.flush()
    return EntryView(
        entry_id=entry_id,
        idempotency_key=key,
        saga_id=saga_id,
        kind=kind,
        reverses_entry_id=reverses_entry_id,
        postings=tuple(PostingView(a.account_id, Money.of(m, a.currency)) for a, m in legs),
        created_at=created_at,
        sequence=link.sequence,
        entry_hash=link.entry_hash,
    )


def _postings_with_balances(legs: Sequence[AccountLeg]) -> list[PostingContent]:
    """Each leg with the balance its account reaches, legs on one account applied in order."""
    running: dict[str, int] = {}
    postings: list[PostingContent] = []
    for account, minor in legs:
        after = running.get(account.account_id, account.balance) + minor
        running[account.account_id] = after
        postings.append((account.account_id, account.currency, minor, after))
    return postings


def _new_id(primary_key: Sequence[object] | None) -> int:
    """The id the database gave the row (lastrowid on SQLite, RETURNING on PostgreSQL)."""
    if primary_key is None or not isinstance(primary_key[0], int):
        raise RuntimeError(f"the database returned no entry id: {primary_key!r}")
    return primary_key[0]


def transfer(
    session: Session,
    key: str,
    source_id: str,
    dest_id: str,
    amount: Money,
    *,
    saga_id: str | None,
    kind: EntryKind = EntryKind.TRANSFER,
) -> EntryView:
    """Move `amount` from source to destination; a known key returns its entry unchanged."""
    check_key(key)
    check_amount(amount)
    if source_id == dest_id:
        raise InvalidRequestError("to_account_id", "must differ from the source account")
    legs = [(source_id, -amount.minor), (dest_id, amount.minor)]
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, kind, legs)
    accounts = lock_accounts(session, source_id, dest_id)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, kind, legs)
    source, dest = accounts[source_id], accounts[dest_id]
    for account in (source, dest):
        check_currency(account, amount)
        check_active(account)
    check_can_take(source, amount.minor)
    legs_rows = [(source, -amount.minor), (dest, amount.minor)]
    return post_entry(session, key=key, kind=kind, saga_id=saga_id, legs=legs_rows)


def settle(session: Session, key: str, clearing_account_id: str, *, saga_id: str) -> EntryView:
    """Write a postingless 'settlement' entry; refuse while money of the saga sits in clearing."""
    check_key(key)
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, EntryKind.SETTLEMENT)
    in_clearing = net_effect(session, saga_id).get(clearing_account_id)
    if in_clearing is not None:
        raise InvalidRequestError(
            "saga_id", f"{in_clearing} of saga {saga_id} is still in {clearing_account_id}"
        )
    return post_entry(session, key=key, kind=EntryKind.SETTLEMENT, saga_id=saga_id, legs=[])
