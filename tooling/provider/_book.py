"""The simulated provider's records: payouts by key, scenarios, per-key counters. Thread-safe."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from sagas.foundations import Money
from tooling.provider._journal import BookedLine, Direction, Journal, LineKind
from tooling.provider._scenario import DEFAULT, Behaviour, Scenario


class PayoutStatus(StrEnum):
    ACCEPTED = "accepted"  # taken, not yet settled
    SETTLED = "settled"  # the money reached the beneficiary
    DECLINED = "declined"  # refused; nothing moved


class BadPayoutError(ValueError):
    """A payout request the provider refuses to read (400)."""


@dataclass(frozen=True, kw_only=True)
class PayoutRequest:
    key: str
    account: str
    amount: str
    currency: str
    callback_url: str | None = None
    end_to_end_id: str | None = None
    """What the statement's line carries as the caller's reference (ISO 20022 EndToEndId, at
    most 35 characters); the key when not given."""

    @classmethod
    def from_json(cls, body: Any) -> PayoutRequest:
        if not isinstance(body, dict):
            raise BadPayoutError("a payout is a JSON object")
        try:
            request = cls(**body)
        except TypeError as err:
            raise BadPayoutError(str(err)) from err
        for name in ("key", "account", "amount", "currency"):
            if not isinstance(getattr(request, name), str) or not getattr(request, name):
                raise BadPayoutError(f"{name} must be a non-empty string")
        reference = request.end_to_end_id
        if reference is not None and not (isinstance(reference, str) and 0 < len(reference) <= 35):
            raise BadPayoutError("end_to_end_id must be 1 to 35 characters")
        try:
            amount = Decimal(request.amount)
        except InvalidOperation as err:
            raise BadPayoutError("amount must be a decimal string") from err
        if not amount.is_finite() or amount <= 0:
            raise BadPayoutError("amount must be positive")
        return request


@dataclass(kw_only=True)
class Payout:
    request: PayoutRequest
    status: PayoutStatus
    reason: str | None = None
    scenario: Scenario = DEFAULT
    """The rule that applied when the payout was taken: it also says how it is stated."""
    settled_at: datetime | None = None
    fee: str | None = None
    """What the provider charged when it settled the payout (decimal text)."""

    def to_json(self) -> dict[str, Any]:
        body = {
            "key": self.request.key,
            "account": self.request.account,
            "amount": self.request.amount,
            "currency": self.request.currency,
            "status": self.status.value,
        }
        if self.settled_at is not None:
            body["settled_at"] = self.settled_at.isoformat()
        return body | ({"reason": self.reason} if self.reason else {})


@dataclass
class _Counters:
    limited: int = 0
    delayed: int = 0
    inquiries: int = 0


@dataclass
class Book:
    payouts: dict[str, Payout] = field(default_factory=dict)
    scenarios: list[Scenario] = field(default_factory=list)
    counters: dict[str, _Counters] = field(default_factory=dict)
    journal: Journal = field(default_factory=Journal)
    last_booked: datetime | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_scenario(self, scenario: Scenario) -> None:
        with self.lock:
            self.scenarios.append(scenario)

    def clear_scenarios(self) -> None:
        with self.lock:
            self.scenarios.clear()

    def scenario_for(self, key: str, account: str) -> Scenario:
        with self.lock:
            found = (s for s in reversed(self.scenarios) if s.matches(key, account))
            return next(found, DEFAULT)

    def count(self, key: str) -> _Counters:
        return self.counters.setdefault(key, _Counters())

    def rate_limited(self, key: str, scenario: Scenario) -> bool:
        """Whether this request is answered 429 (the first `limited` requests of the key are)."""
        with self.lock:
            if scenario.behaviour is not Behaviour.RATE_LIMIT or key in self.payouts:
                return False
            counters = self.count(key)
            counters.limited += 1
            return counters.limited <= scenario.limited

    def delayed(self, key: str, scenario: Scenario) -> bool:
        """Whether this answer comes late (only the first request of the key's is)."""
        with self.lock:
            if scenario.behaviour is not Behaviour.ACCEPT_THEN_TIMEOUT:
                return False
            counters = self.count(key)
            counters.delayed += 1
            return counters.delayed == 1

    def record(self, request: PayoutRequest, scenario: Scenario) -> tuple[Payout, bool]:
        """The payout for this key, new or as first recorded; True when it is new.

        Raises KeyError when the key is recorded with a different body.
        """
        with self.lock:
            found = self.payouts.get(request.key)
            if found is not None:
                if found.request != request:
                    raise KeyError(request.key)
                return replace(found), False
            if scenario.behaviour is Behaviour.DECLINE:
                payout = Payout(
                    request=request, status=PayoutStatus.DECLINED, reason=scenario.reason
                )
            else:
                payout = Payout(request=request, status=PayoutStatus.ACCEPTED, scenario=scenario)
            self.payouts[request.key] = payout
            return replace(payout), True

    def settle(self, key: str) -> Payout:
        """Settle the payout and book it on the provider's account; once, however often called."""
        with self.lock:
            payout = self.payouts[key]
            if payout.settled_at is None:
                payout.status = PayoutStatus.SETTLED
                payout.settled_at = self.last_booked = datetime.now(UTC)
                payout.fee = payout.scenario.fee
                request = payout.request
                self.journal.settlement(
                    request.end_to_end_id or key,
                    request.amount,
                    request.currency,
                    payout.scenario,
                    payout.settled_at,
                )
            return replace(payout)

    def book_line(self, key: str, amount: Money, direction: Direction) -> BookedLine:
        """A line on the provider's account that no payout of this book explains."""
        kind = LineKind.PAYOUT if direction is Direction.DEBIT else LineKind.OTHER
        with self.lock:
            self.last_booked = datetime.now(UTC)
            return self.journal.book(key, amount, direction, kind, self.last_booked)

    def statement_of(self, day: date | None, currency: str) -> tuple[date, Money, list[BookedLine]]:
        """The day (by default the latest day anything was booked), its opening balance and
        its lines in `currency`."""
        with self.lock:
            day = day or (self.last_booked or datetime.now(UTC)).date()
            lines = list(self.journal.of_day(day, currency))
            return day, self.journal.opening_balance(day, currency), lines

    def inquire(self, key: str) -> Payout | str | None:
        """The payout, None when the key is unknown, or "unknown" while the scenario says so."""
        with self.lock:
            payout = self.payouts.get(key)
            if payout is None:
                return None
        scenario = self.scenario_for(key, payout.request.account)
        with self.lock:
            counters = self.count(key)
            counters.inquiries += 1
            if counters.inquiries <= scenario.unknown_inquiries:
                return "unknown"
            return replace(payout)
