"""The proof of cash of a statement: its closing balance against the ledger's balance of the
rail account at the statement's end, with the unmatched items on each side that explain the
difference.

The ledger holds no bank balance of its own: the rail account's balance at the statement's end
is the statement's opening balance carried by the ledger's rail movements of the statement's
scope (those matched to its lines, and those in its currency booked by its end that nothing
matched). The proof balances when the closing balance equals that ledger balance corrected by
the reconciling items: the statement's lines no movement explains (+), the movements no line
books (-) and the matched pairs whose amounts differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import Money
from sagas.reconcile._models import (
    BankStatementRow,
    RailMatch,
    RailTransactionMatch,
    StatementLineRow,
    StatementTransactionRow,
)
from sagas.reconcile.formats import LineDirection
from sagas.reconcile.matching import RailMovement


@dataclass(frozen=True, kw_only=True)
class ProofItem:
    """A reconciling item: a statement line or a ledger movement, signed as the account sees it."""

    side: str
    """`statement` (a line, by its line id) or `ledger` (a movement, by its entry id)."""
    item_id: int
    reference: str
    amount: Money
    day: date


@dataclass(frozen=True, kw_only=True)
class ProofOfCash:
    file_id: int
    statement_id: str
    account: str
    period_end: datetime | None
    opening: Money
    statement_lines: Money
    """What the statement's stored lines move."""
    closing: Money
    ledger_movements: Money
    """What the ledger's rail movements of the statement's scope move."""
    ledger_balance: Money
    """opening + ledger_movements: the rail account's balance in the books at the end."""
    unmatched_lines: tuple[ProofItem, ...]
    unmatched_movements: tuple[ProofItem, ...]
    amount_differences: tuple[ProofItem, ...]
    """Matched pairs whose amounts differ: the line's amount minus the movement's."""
    charges: tuple[ProofItem, ...] = ()
    """Charges the rail debited with their lines, on top of the amounts (when that is how the
    statement adds up): the ledger's movements do not hold them."""
    position: int = 1
    """The statement's place in its file: 1 for the first."""

    @property
    def difference(self) -> Money:
        """Closing balance minus the ledger's balance: what the items must explain."""
        return self.closing - self.ledger_balance

    @property
    def explained(self) -> Money:
        total = Money.of(0, self.closing.currency.code)
        for item in (*self.unmatched_lines, *self.amount_differences, *self.charges):
            total = total + item.amount
        for item in self.unmatched_movements:
            total = total - item.amount
        return total

    @property
    def statement_adds_up(self) -> bool:
        return self.opening + self.statement_lines == self.closing

    @property
    def balances(self) -> bool:
        """The statement adds up, and the items explain the whole difference."""
        return self.statement_adds_up and self.difference == self.explained

    @property
    def reconciled(self) -> bool:
        """It balances with no reconciling item left: statement and books agree. A 0.00 line,
        never matched, moves nothing and leaves none; items that cancel each other do."""
        items = (
            *self.unmatched_lines,
            *self.unmatched_movements,
            *self.amount_differences,
            *self.charges,
        )
        return (
            self.balances and self.difference.minor == 0 and not any(i.amount.minor for i in items)
        )


def proofs_of_cash(session: Session, movements: Iterable[RailMovement]) -> list[ProofOfCash]:
    """A proof for each stored statement that states both balances, in import order (and a
    file's statements in the file's order)."""
    every = list(movements)
    matched = {row.line_id: [row.entry_id] for row in session.scalars(select(RailMatch))}
    for line_id, entries in _batches_matched(session).items():
        matched.setdefault(line_id, entries)
    matched_entries = {entry for entries in matched.values() for entry in entries}
    query = (
        select(BankStatementRow)
        .where(
            BankStatementRow.opening_minor.is_not(None),
            BankStatementRow.closing_minor.is_not(None),
        )
        .order_by(BankStatementRow.file_id, BankStatementRow.position)
    )
    return [_proof(session, row, every, matched, matched_entries) for row in session.scalars(query)]


def _batches_matched(session: Session) -> dict[int, list[int]]:
    """The batch lines whose every transaction is matched, with the entries they book: such a
    line is matched as a whole (`Batches`), through its transactions."""
    entry_of = {
        row.transaction_id: row.entry_id for row in session.scalars(select(RailTransactionMatch))
    }
    of_line: dict[int, list[int | None]] = {}
    for row in session.scalars(select(StatementTransactionRow)):
        of_line.setdefault(row.line_id, []).append(entry_of.get(row.transaction_id))
    return {
        line_id: [entry for entry in entries if entry is not None]
        for line_id, entries in of_line.items()
        if len(entries) > 1 and None not in entries
    }


def _proof(
    session: Session,
    row: BankStatementRow,
    movements: list[RailMovement],
    matched: dict[int, list[int]],
    matched_entries: set[int],
) -> ProofOfCash:
    code = row.currency
    assert row.opening_minor is not None
    assert row.closing_minor is not None
    by_entry = {movement.entry_id: movement for movement in movements}
    lines = list(
        session.scalars(
            select(StatementLineRow)
            .where(StatementLineRow.bank_statement_id == row.bank_statement_id)
            .order_by(StatementLineRow.position)
        )
    )
    unmatched_lines, differences, scope, charges = [], [], [], []
    line_total = 0
    for line in lines:
        signed = line.amount_minor if line.direction == LineDirection.CREDIT else -line.amount_minor
        line_total += signed
        if line.fee_minor:
            charges.append(
                ProofItem(
                    side="statement",
                    item_id=line.line_id,
                    reference=line.end_to_end_id or line.bank_reference or "",
                    amount=Money.of(-line.fee_minor, code),
                    day=line.booking_date,
                )
            )
        booked = [by_entry[entry] for entry in matched.get(line.line_id, []) if entry in by_entry]
        if not booked:
            unmatched_lines.append(
                ProofItem(
                    side="statement",
                    item_id=line.line_id,
                    reference=line.end_to_end_id or line.bank_reference or "",
                    amount=Money.of(signed, code),
                    day=line.booking_date,
                )
            )
            continue
        scope += booked
        moved = sum(_signed(movement).minor for movement in booked)
        if moved != signed:
            differences.append(
                ProofItem(
                    side="statement",
                    item_id=line.line_id,
                    reference=booked[0].reference
                    if len(booked) == 1
                    else line.bank_reference or "",
                    amount=Money.of(signed - moved, code),
                    day=line.booking_date,
                )
            )
    unmatched_movements = [
        ProofItem(
            side="ledger",
            item_id=m.entry_id,
            reference=m.reference,
            amount=_signed(m),
            day=m.booked_at.date(),
        )
        for m in movements
        if m.entry_id not in matched_entries
        and m.amount.currency.code == code
        and (row.period_end is None or m.booked_at < row.period_end)
        and (row.period_start is None or m.booked_at >= row.period_start)
    ]
    opening = Money.of(row.opening_minor, code)
    charged = sum(item.amount.minor for item in charges)
    # As the balance check reads it: charges debited on top only when that is how it adds up.
    on_top = (
        bool(charges)
        and row.opening_minor + line_total != row.closing_minor
        and row.opening_minor + line_total + charged == row.closing_minor
    )
    ledger_movements = Money.of(
        sum(_signed(m).minor for m in scope) + sum(i.amount.minor for i in unmatched_movements),
        code,
    )
    return ProofOfCash(
        file_id=row.file_id,
        statement_id=row.statement_id,
        account=row.account,
        period_end=row.period_end,
        opening=opening,
        statement_lines=Money.of(line_total + (charged if on_top else 0), code),
        closing=Money.of(row.closing_minor, code),
        ledger_movements=ledger_movements,
        ledger_balance=opening + ledger_movements,
        unmatched_lines=tuple(unmatched_lines),
        unmatched_movements=tuple(unmatched_movements),
        amount_differences=tuple(differences),
        charges=tuple(charges) if on_top else (),
        position=row.position + 1,
    )


def _signed(movement: RailMovement) -> Money:
    return -movement.amount if movement.direction is LineDirection.DEBIT else movement.amount
