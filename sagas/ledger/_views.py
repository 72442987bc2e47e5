"""Immutable views of accounts, holds and journal entries, returned to callers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sagas.foundations import Money
from sagas.ledger._models import Account, Hold, JournalEntry


class AccountStatus(StrEnum):
    ACTIVE = "active"  # takes debits and credits
    FROZEN = "frozen"  # takes no new movements until unfrozen; compensations still apply
    CLOSED = "closed"  # final; only reachable with zero balance and nothing held


class HoldStatus(StrEnum):
    ACTIVE = "active"  # funds are reserved and count against the available balance
    POSTED = "posted"  # captured by a journal entry
    VOIDED = "voided"  # released without moving money (or a tombstone placed before the hold)


class EntryKind(StrEnum):
    FUNDING = "funding"  # money from the outside world (@funding) into an account
    TRANSFER = "transfer"  # money between two accounts
    CAPTURE = "capture"  # a held amount moved to its destination
    REVERSAL = "reversal"  # the negation of an earlier entry
    VOID_MARKER = "void_marker"  # no postings: a reversal that arrived before its original
    SETTLEMENT = "settlement"  # no postings: a saga's clearing leg netted to zero and was settled


BUILT_IN_KINDS = frozenset(kind.value for kind in EntryKind)


@dataclass(frozen=True, slots=True)
class AccountView:
    account_id: str
    currency: str
    status: AccountStatus
    balance: Money
    held: Money
    overdraft: Money
    available: Money
    """balance - held + overdraft: what a new hold or debit may take."""
    is_system: bool
    created_at: datetime
    status_version: int = 0
    """How many status changes the account has had: the version of its latest."""


@dataclass(frozen=True, slots=True)
class StatusChangeView:
    """One recorded change of an account's status (its `version`-th)."""

    account_id: str
    version: int
    status: AccountStatus
    changed_at: datetime
    migrated: bool
    """Recorded by revision 0011 for a status set before it: no operator action to tie it to."""


@dataclass(frozen=True, slots=True)
class HoldView:
    hold_key: str
    account_id: str | None
    """None only for a tombstone: a hold voided before it was ever placed."""
    amount: Money | None
    """None only for a tombstone."""
    status: HoldStatus
    saga_id: str
    created_at: datetime
    closed_at: datetime | None

    @property
    def is_tombstone(self) -> bool:
        return self.account_id is None


@dataclass(frozen=True, slots=True)
class PostingView:
    account_id: str
    amount: Money
    """Signed: negative takes money out of the account, positive puts it in."""


@dataclass(frozen=True, slots=True)
class EntryView:
    entry_id: int
    idempotency_key: str
    saga_id: str | None
    kind: str
    """An EntryKind for the ledger's own entries, else the kind a saga declared (e.g. "fee")."""
    reverses_entry_id: int | None
    postings: tuple[PostingView, ...]
    created_at: datetime
    sequence: int | None
    """The entry's place in the sealed journal chain (gapless, from 1); None until the sealer
    reaches it."""
    entry_hash: str
    """SHA-256 over its content and postings: what its writer signed."""


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The last link of the sealed journal chain; sequence 0 and the genesis hash when empty."""

    sequence: int
    entry_hash: str


def account_view(row: Account, derived_balance: int | None = None) -> AccountView:
    """The account as it stands; a system account's balance is `derived_balance`, the sum of
    its postings (its row carries none)."""

    def money(minor: int) -> Money:
        return Money.of(minor, row.currency)

    balance = row.balance if derived_balance is None else derived_balance
    return AccountView(
        account_id=row.account_id,
        currency=row.currency,
        status=AccountStatus(row.status),
        balance=money(balance),
        held=money(row.held),
        overdraft=money(row.overdraft),
        available=money(balance - row.held + row.overdraft),
        is_system=row.is_system,
        created_at=row.created_at,
        status_version=row.status_version,
    )


def hold_view(row: Hold) -> HoldView:
    return HoldView(
        hold_key=row.hold_key,
        account_id=row.account_id,
        amount=None if row.currency is None else Money.of(row.amount, row.currency),
        status=HoldStatus(row.status),
        saga_id=row.saga_id,
        created_at=row.created_at,
        closed_at=row.closed_at,
    )


def entry_view(row: JournalEntry) -> EntryView:
    return EntryView(
        entry_id=row.entry_id,
        idempotency_key=row.idempotency_key,
        saga_id=row.saga_id,
        kind=entry_kind(row.kind),
        reverses_entry_id=row.reverses_entry_id,
        postings=tuple(
            PostingView(p.account_id, Money.of(p.amount, p.currency)) for p in row.postings
        ),
        created_at=row.created_at,
        sequence=None if row.seal is None else row.seal.sequence,
        entry_hash=row.entry_hash,
    )


def entry_kind(value: str) -> str:
    """A built-in kind as its EntryKind member, any other (declared) kind as it is."""
    return EntryKind(value) if value in BUILT_IN_KINDS else value
