"""What matching reads and finds: stored lines and their transactions, findings (a break to
open each) and the matches made."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sagas.reconcile.formats import LineDirection, LineKind
from sagas.reconcile.matching._breaks import BreakKind


@dataclass(frozen=True, kw_only=True)
class BookedTransaction:
    """A stored transaction of a line (camt TxDtls), as matching reads it."""

    transaction_id: int
    position: int
    end_to_end_id: str | None
    amount_minor: int | None
    return_reason: str | None


@dataclass(frozen=True, kw_only=True)
class BookedLine:
    """A stored statement line, as matching reads it."""

    line_id: int
    end_to_end_id: str | None
    direction: LineDirection
    amount_minor: int
    currency: str
    fee_minor: int | None
    value_date: date
    kind: LineKind = LineKind.OTHER
    bank_reference: str = ""
    account: str = ""
    """The rail account its statement names: what a matching rule may apply to."""
    transactions: tuple[BookedTransaction, ...] = ()

    @property
    def is_batch(self) -> bool:
        return len(self.transactions) > 1

    @property
    def return_reason(self) -> str | None:
        return next((t.return_reason for t in self.transactions if t.return_reason), None)


@dataclass(frozen=True, kw_only=True)
class Finding:
    kind: BreakKind
    currency: str
    detail: str
    line_id: int | None = None
    entry_id: int | None = None
    reference: str | None = None
    ledger_minor: int | None = None
    statement_minor: int | None = None
    transaction_id: int | None = None
    """Of a batch line, the transaction the finding is about."""

    @property
    def key(self) -> str:
        key = f"{self.kind}:{self.line_id or '-'}:{self.entry_id or '-'}"
        return key if self.transaction_id is None else f"{key}:t{self.transaction_id}"


@dataclass
class Outcome:
    matches: list[tuple[int, int, str]] = field(default_factory=list)
    """New (line id, entry id, method)."""
    transaction_matches: list[tuple[int, int, str]] = field(default_factory=list)
    """New (transaction id, entry id, method): a batch line's transactions."""
    findings: list[Finding] = field(default_factory=list)
    matched_lines: set[int] = field(default_factory=set)
    matched_entries: set[int] = field(default_factory=set)
