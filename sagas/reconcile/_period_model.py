"""What the reconciliation holds for a period, as an auditor reads it: each statement file with
its statements, every line of each statement where it went (kept, known, refused) with its match
or its breaks, the breaks of the period, and the proofs of cash of its statements."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile._proof import ProofOfCash
from sagas.reconcile.formats import LineDirection, LineKind
from sagas.reconcile.matching import CLOSED_STATUSES, BreakView, RailMovement


@dataclass(frozen=True, kw_only=True)
class PeriodScope:
    """Which statements a period holds: those whose days meet `since`..`until` (booking days,
    both included; None leaves that end open), of `accounts` (empty: every account)."""

    since: date | None = None
    until: date | None = None
    accounts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise InvalidRequestError("--from", f"{self.since} is after --to {self.until}")

    def meets(self, first: date, last: date) -> bool:
        """Whether the days `first`..`last` fall, in part at least, in the period."""
        return (self.since is None or last >= self.since) and (
            self.until is None or first <= self.until
        )

    def holds_account(self, account: str) -> bool:
        return not self.accounts or account in self.accounts


class LineStatus(StrEnum):
    """Where a line of a statement went when its file was imported."""

    NEW = "new"  # kept with this statement's file
    KNOWN = "known"  # the same booking, kept before with an earlier file (listed there)
    REFUSED = "refused"  # not kept: its bank reference holds another booking (a conflict break)


@dataclass(frozen=True, kw_only=True)
class LineMatch:
    """The journal entry a line (or a batch's transaction) books, and how it was matched."""

    entry_id: int
    saga_id: str | None
    """None when the entry is no rail movement of a saga type this process knows."""
    method: str


@dataclass(frozen=True, kw_only=True)
class PeriodTransaction:
    transaction_id: int
    position: int
    end_to_end_id: str | None
    amount: Money | None
    return_reason: str | None
    match: LineMatch | None
    break_ids: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class PeriodLine:
    """One line of a statement, at its place in the statement (1 for the first). A known or refused
    line is not kept with this file: only its place, and a refused one's break, are known."""

    position: int
    status: LineStatus
    line_id: int | None = None
    bank_reference: str | None = None
    end_to_end_id: str | None = None
    direction: LineDirection | None = None
    kind: LineKind | None = None
    amount: Money | None = None
    fee: Money | None = None
    booking_date: date | None = None
    value_date: date | None = None
    description: str = ""
    zero_amount: bool = False
    match: LineMatch | None = None
    break_ids: tuple[int, ...] = ()
    transactions: tuple[PeriodTransaction, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PeriodStatement:
    position: int
    """Its place in its file: 1 for the first. A statement id may repeat within a file (an
    MT940 :20: and :28C: some banks repeat); the place does not."""
    statement_id: str
    account: str
    currency: str
    period_start: datetime | None
    period_end: datetime | None
    opening: Money | None
    opening_date: date | None
    closing: Money | None
    closing_date: date | None
    read: int
    """The lines the file holds for it, as its import read them."""
    lines: tuple[PeriodLine, ...]
    """Every line of the statement at its place, each once; a place beyond `read` would be
    listed too (a row of no line the file holds)."""
    break_ids: tuple[int, ...]
    """Breaks about the statement itself: its balances (`statement_unbalanced`, `statement_gap`)."""

    def count(self, status: LineStatus) -> int:
        return sum(line.status is status for line in self.lines)


@dataclass(frozen=True, kw_only=True)
class PeriodFile:
    file_id: int
    name: str
    sha256: str
    format: str
    imported_at: datetime
    imported_by: str
    action_id: str | None
    """The operator action that imported it: its `statement_imported` record names it."""
    statements: tuple[PeriodStatement, ...]


@dataclass(frozen=True, kw_only=True)
class PeriodBreak:
    view: BreakView
    currency: str
    transaction_id: int | None
    """Of a batch line, the transaction the break is about."""
    file_ids: tuple[int, ...]
    """The statement files the break is about (its statements' files for a balance break, a
    refused line's file)."""
    opened_by_action: str | None
    closed_by_action: str | None
    """The matching run that found it matched since."""

    @property
    def closed_at(self) -> datetime | None:
        """When it closed (its last change, once resolved or matched); None while it is not."""
        return self.view.updated_at if self.view.status in CLOSED_STATUSES else None


@dataclass(frozen=True, kw_only=True)
class ReconciliationPeriod:
    scope: PeriodScope
    as_of: datetime
    """The database's time when it was read: what ages are measured to."""
    files: tuple[PeriodFile, ...]
    breaks: tuple[PeriodBreak, ...]
    proofs: tuple[ProofOfCash, ...]
    """The proof of cash of each statement of the period that states its balances."""
    movements: Mapping[int, RailMovement]
    """The ledger's rail movements by entry id."""
