"""How strictly lines and movements are matched, and when a missing line becomes a break."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta

from sagas.foundations import InvalidRequestError, Money, parse_money


@dataclass(frozen=True, kw_only=True)
class ReconcilePolicy:
    date_tolerance: timedelta = timedelta(days=2)
    """How far a line's value date may be from its movement's booking, matched by amount."""
    amount_tolerance_minor: int = 0
    """How far a line's amount may be from its movement's before it is a mismatch."""
    cutoff: time = time(23, 59, 59)
    """The rail's daily cut-off (UTC): a movement booked after it is on the next day's statement."""
    grace: timedelta = timedelta(hours=24)
    """How long after the rail books it a movement may be missing from complete statements
    before it is a break."""
    fees: dict[str, Money] = field(default_factory=dict)
    """The fee agreed with the rail per movement, by currency; none agreed: none expected."""

    def expected_fee(self, currency: str) -> int:
        fee = self.fees.get(currency)
        return 0 if fee is None else fee.minor

    def due_at(self, booked_at: datetime) -> datetime:
        """When the rail books a movement the ledger booked at `booked_at`: at once before the
        cut-off, at the start of the next day after it."""
        after_cutoff = booked_at.timetz().replace(tzinfo=None) > self.cutoff
        if not after_cutoff:
            return booked_at
        day = booked_at.replace(hour=0, minute=0, second=0, microsecond=0)
        return day + timedelta(days=1)

    def overdue(self, booked_at: datetime, covered_until: datetime) -> bool:
        """Whether statements complete up to `covered_until` should have booked the movement:
        they cover the time the rail books it and the grace period after."""
        return covered_until >= self.due_at(booked_at) + self.grace


def parse_fees(text: str, field_name: str = "FUNDSAGA_RECONCILE_FEES") -> dict[str, Money]:
    """`EUR=0.25,USD=0.30` as a fee per currency."""
    fees: dict[str, Money] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        code, sep, amount = part.partition("=")
        if not sep:
            raise InvalidRequestError(field_name, f"{part!r} is not CURRENCY=AMOUNT")
        fees[code.strip()] = parse_money(
            amount.strip(), code.strip(), field=field_name, allow_zero=True
        )
    return fees


def policy_from(
    *,
    date_tolerance_days: int,
    amount_tolerance: int,
    cutoff: str,
    grace_hours: int,
    fees: str,
) -> ReconcilePolicy:
    """The policy the settings (FUNDSAGA_RECONCILE_*) describe."""
    try:
        cut = time.fromisoformat(cutoff)
    except ValueError:
        raise InvalidRequestError(
            "FUNDSAGA_RECONCILE_CUTOFF", f"{cutoff!r} is not HH:MM[:SS]"
        ) from None
    return ReconcilePolicy(
        date_tolerance=timedelta(days=date_tolerance_days),
        amount_tolerance_minor=amount_tolerance,
        cutoff=cut,
        grace=timedelta(hours=grace_hours),
        fees=parse_fees(fees),
    )
