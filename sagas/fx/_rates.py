"""Where rates come from: the `RateSource` interface, its fixed-rate double, and the conversion.

Rates are decimal strings ("161.25": units of the quote currency per unit of the base); they
are parsed with `Decimal` only, never a float. A quote is asked for at a time the saga trusts
(workflow time), never a worker's own clock, so a quote taken on one worker is judged the same
on another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from typing import Protocol

from sagas.foundations import Money, currency
from sagas.fx._errors import ConversionTooSmallError, RateUnavailableError

DEFAULT_QUOTE_TTL = timedelta(minutes=5)


@dataclass(frozen=True)
class Quote:
    """A rate offered until `expires_at` (UTC)."""

    rate: str
    expires_at: datetime


class RateSource(Protocol):
    def quote(self, base: str, quote_currency: str, at: datetime) -> Quote:
        """Units of `quote_currency` per unit of `base`, and until when the offer holds.

        `at` is the saga's time of asking (workflow time, UTC): a source whose offers last a
        period counts it from there, not from the clock of the worker that asks.
        """
        ...


@dataclass(frozen=True)
class FixedRateSource:
    """A rate source with a fixed rate per (base, quote) pair: the test double, and the
    built-in worker's source. Each quote expires `ttl` after the time it is asked at."""

    rates: Mapping[tuple[str, str], str]
    ttl: timedelta = DEFAULT_QUOTE_TTL

    def quote(self, base: str, quote_currency: str, at: datetime) -> Quote:
        rate = self.rates.get((base, quote_currency))
        if rate is None:
            raise RateUnavailableError(f"no rate for {base}/{quote_currency}")
        return Quote(rate=rate, expires_at=at + self.ttl)


DEMO_RATES: Mapping[tuple[str, str], str] = {
    ("EUR", "USD"): "1.0825",
    ("USD", "EUR"): "0.9238",
    ("EUR", "GBP"): "0.8571",
    ("GBP", "EUR"): "1.1667",
    ("EUR", "JPY"): "161.25",
    ("JPY", "EUR"): "0.0062",
    ("EUR", "KWD"): "0.3331",
    ("KWD", "EUR"): "3.0021",
}
"""The built-in worker's rates: illustrative, fixed, for the demo and the tests."""


def parse_rate(text: str) -> Decimal:
    """A rate from its decimal string: finite and positive, else RateUnavailableError."""
    try:
        rate = Decimal(text)
    except (InvalidOperation, TypeError):
        raise RateUnavailableError(f"rate {text!r} is not a decimal string") from None
    if not rate.is_finite() or rate <= 0:
        raise RateUnavailableError(f"rate {text!r} is not a positive decimal")
    return rate


@dataclass(frozen=True)
class Conversion:
    """`amount` converted at `rate`: `converted` is exact, `target` rounded half-even to the
    target currency's minor units; `remainder` = exact - target, under half a minor unit."""

    converted: Decimal
    target: Money

    @property
    def remainder(self) -> Decimal:
        return self.converted - self.target.decimal()


def convert_amount(amount: Money, rate: str, target_code: str) -> Conversion:
    target = currency(target_code)
    with localcontext() as context:
        context.prec = 80  # enough for any 64-bit amount times any rate: nothing rounds early
        exact = amount.decimal() * parse_rate(rate)
        minor = int(exact.scaleb(target.exponent).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
    if minor == 0:
        raise ConversionTooSmallError(
            f"{amount} at {rate} is less than one minor unit of {target.code}"
        )
    return Conversion(converted=exact, target=Money(minor, target))
