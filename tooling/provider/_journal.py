"""The provider's own account: every line it books, which its statements state (not locked:
the Book calls it under its lock)."""

from __future__ import annotations

import itertools
import logging
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum

from sagas.foundations import InvalidRequestError, Money, parse_money
from tooling.provider._scenario import Scenario

log = logging.getLogger("tooling.provider")

FLOAT = "1000000"
"""What the provider's account holds in each currency before its first booking."""


class Direction(StrEnum):
    DEBIT = "DBIT"  # out of the provider's account: a payout paid
    CREDIT = "CRDT"  # in: a payout returned, a collection


class LineKind(StrEnum):
    PAYOUT = "payout"  # a settled payout
    RETURN = "return"  # a settled payout sent back by the beneficiary's bank
    OTHER = "other"  # money in that no payout explains


@dataclass(frozen=True, kw_only=True)
class BookedLine:
    reference: str
    """The provider's own id of the line (camt AcctSvcrRef): PRV-<run>-<n>, unique across
    simulator runs as a real provider's is forever (a ledger keeps each line once by it)."""
    key: str
    """The payout key the caller sent (camt EndToEndId)."""
    amount: Money
    direction: Direction
    kind: LineKind
    booked_at: datetime
    fee: Money | None = None
    return_reason: str | None = None
    """An ISO 20022 return reason code (AC04) on a return line."""

    @property
    def day(self) -> date:
        return self.booked_at.date()

    def movement(self) -> Money:
        """What the line does to the account's balance, its fee included."""
        moved = self.amount if self.direction is Direction.CREDIT else -self.amount
        return moved if self.fee is None else moved - self.fee


@dataclass
class Journal:
    lines: list[BookedLine] = field(default_factory=list)
    numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    run: str = field(default_factory=lambda: secrets.token_hex(4))

    def settlement(
        self, key: str, amount: str, currency: str, scenario: Scenario, at: datetime
    ) -> None:
        """Book a settled payout the way the scenario says its statement states it."""
        if scenario.omit_from_statement:
            return
        try:
            sent = parse_money(amount, currency)
            stated = parse_money(scenario.statement_amount or amount, currency)
            fee = parse_money(scenario.fee or "0", currency, allow_zero=True)
        except InvalidRequestError as err:
            # The simulator settles what it took; a statement can only state real money.
            log.warning("payout %s settled but not stated: %s", key, err)
            return
        line = self.book(key, stated, Direction.DEBIT, LineKind.PAYOUT, at, fee=fee)
        if scenario.duplicate_on_statement:
            self.book(key, line.amount, line.direction, line.kind, at, fee=line.fee)
        if scenario.returned is not None:
            self.book(key, sent, Direction.CREDIT, LineKind.RETURN, at, reason=scenario.returned)

    def book(
        self,
        key: str,
        amount: Money,
        direction: Direction,
        kind: LineKind,
        at: datetime,
        *,
        fee: Money | None = None,
        reason: str | None = None,
    ) -> BookedLine:
        line = BookedLine(
            reference=f"PRV-{self.run}-{next(self.numbers)}",
            key=key,
            amount=amount,
            direction=direction,
            kind=kind,
            booked_at=at,
            fee=fee if fee is not None and fee.minor else None,
            return_reason=reason,
        )
        self.lines.append(line)
        return line

    def of_day(self, day: date, currency: str) -> tuple[BookedLine, ...]:
        return tuple(x for x in self.lines if x.day == day and x.amount.currency.code == currency)

    def opening_balance(self, day: date, currency: str) -> Money:
        """The balance when `day` starts: the float and every line booked before it."""
        balance = parse_money(FLOAT, currency)
        for line in self.lines:
            if line.day < day and line.amount.currency.code == currency:
                balance += line.movement()
        return balance
