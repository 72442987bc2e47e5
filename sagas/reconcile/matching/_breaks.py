"""Breaks: what kinds of difference reconciliation finds, and where each stands."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sagas.foundations import Money


class BreakKind(StrEnum):
    """What differs between a statement and the ledger."""

    MISSING_IN_LEDGER = "missing_in_ledger"  # the rail booked a line no rail movement explains
    MISSING_IN_STATEMENT = "missing_in_statement"  # a rail movement no statement booked in time
    AMOUNT_MISMATCH = "amount_mismatch"  # same reference, another amount
    CURRENCY_MISMATCH = "currency_mismatch"  # same reference, another currency
    DUPLICATE = "duplicate"  # a second line for a movement already matched
    FEE_DIFFERENCE = "fee_difference"  # the rail charged another fee than agreed
    STATEMENT_CONFLICT = "statement_conflict"  # a bank reference kept before, now other content
    STATEMENT_UNBALANCED = "statement_unbalanced"  # opening + lines != the closing it states
    STATEMENT_GAP = "statement_gap"  # the next statement opens otherwise, or before, it closed
    FEE = "fee"  # a fee booked on its own line that no ledger movement books
    INTEREST = "interest"  # interest booked on its own line that no ledger movement books
    BATCH_TOTAL_MISMATCH = "batch_total_mismatch"  # an entry's amount is not its transactions'
    VALUE_DATE_MISMATCH = "value_date_mismatch"  # valued beyond the tolerance its rule requires


class BreakStatus(StrEnum):
    """Where a break stands: open until explained, and closed by a resolution or a match."""

    OPEN = "open"  # found, nobody has looked at it
    EXPLAINED = "explained"  # an operator said why, with evidence; still to be resolved
    RESOLVED = "resolved"  # closed by two operators (maker-checker), maybe with an adjustment
    MATCHED = "matched"  # closed by itself: a later statement or ledger movement matched it


CLOSED_STATUSES = frozenset({BreakStatus.RESOLVED, BreakStatus.MATCHED})
_BETWEEN_AMOUNTS = frozenset(
    {
        BreakKind.AMOUNT_MISMATCH,
        BreakKind.FEE_DIFFERENCE,
        BreakKind.BATCH_TOTAL_MISMATCH,
        BreakKind.STATEMENT_UNBALANCED,
        BreakKind.STATEMENT_GAP,
    }
)
"""Kinds whose difference lies between the ledger's amount and the statement's (of a batch,
its transactions' sum and its entry's amount); a duplicate's is its second line, a missing
line's or movement's, a fee's or an interest's its own amount. A statement's own break keeps
the balance the file states as the statement's amount and the one it should be (opening +
lines, or the previous statement's closing) as the ledger's."""


@dataclass(frozen=True, kw_only=True)
class BreakView:
    break_id: int
    kind: BreakKind
    status: BreakStatus
    reference: str | None
    """The end-to-end id the difference is about, when one is known."""
    line_id: int | None
    entry_id: int | None
    ledger_amount: Money | None
    statement_amount: Money | None
    detail: str
    opened_at: datetime
    updated_at: datetime
    note: str
    evidence: str
    explained_by: str | None
    resolved_by: str | None
    adjustment_entry_id: int | None
    version: int

    @property
    def difference(self) -> Money | None:
        """What the break is about, in its currency: the most its adjusting entry may move
        without a treasury approval. None for a currency mismatch: no one amount measures it."""
        ledger, statement = self.ledger_amount, self.statement_amount
        if ledger is not None and statement is not None and self.kind in _BETWEEN_AMOUNTS:
            return statement - ledger if statement.minor >= ledger.minor else ledger - statement
        return statement if statement is not None else ledger

    def age_seconds(self, now: datetime) -> int:
        return max(0, int((now - self.opened_at).total_seconds()))
