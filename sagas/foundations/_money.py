"""Money as an immutable (minor units, currency) pair; parsing and formatting of decimal strings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from sagas.foundations._currency import Currency, currency
from sagas.foundations._errors import InvalidRequestError

MAX_MINOR_UNITS = 2**63 - 1
_DECIMAL = re.compile(r"(?P<units>[0-9]+)(?:\.(?P<fraction>[0-9]+))?")


@dataclass(frozen=True, slots=True)
class Money:
    """An amount in a currency's minor units; never a float."""

    minor: int
    currency: Currency

    def __post_init__(self) -> None:
        if isinstance(self.minor, bool) or not isinstance(self.minor, int):
            raise TypeError("Money.minor must be an int of minor units")
        if abs(self.minor) > MAX_MINOR_UNITS:
            raise InvalidRequestError("amount", "is beyond the 64-bit minor-unit range")

    @classmethod
    def of(cls, minor: int, code: str) -> Money:
        return cls(minor, currency(code))

    def _same_currency(self, other: Money) -> None:
        if other.currency != self.currency:
            raise ValueError(f"cannot combine {self.currency.code} with {other.currency.code}")

    def __add__(self, other: Money) -> Money:
        self._same_currency(other)
        return Money(self.minor + other.minor, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same_currency(other)
        return Money(self.minor - other.minor, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.minor, self.currency)

    def decimal(self) -> Decimal:
        return Decimal(self.minor).scaleb(-self.currency.exponent)

    def amount_text(self) -> str:
        """The amount as a plain decimal string with the currency's decimals, e.g. '100.00'."""
        return f"{self.decimal():.{self.currency.exponent}f}"

    def __str__(self) -> str:
        return f"{self.amount_text()} {self.currency.code}"


def parse_money(text: str, code: str, *, field: str = "amount", allow_zero: bool = False) -> Money:
    """Parse a plain positive decimal string ('12.34') strictly into Money.

    Refuses signs, exponents, separators, NaN/Infinity, more decimals than the currency has,
    and values beyond the 64-bit minor-unit range, naming `field` in the error.
    """
    cur = currency(code)
    if not isinstance(text, str):
        raise InvalidRequestError(field, "must be a decimal string such as '12.34', not a number")
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise InvalidRequestError(
            field, f"{text[:40]!r} is not a plain decimal amount such as '12.34'"
        )
    fraction = match.group("fraction") or ""
    if len(fraction) > cur.exponent:
        raise InvalidRequestError(
            field, f"{text!r} has more decimals than {cur.code} allows ({cur.exponent})"
        )
    units = match.group("units")
    if len(units.lstrip("0")) > 20:
        raise InvalidRequestError(field, "is beyond the 64-bit minor-unit range")
    minor = int(units) * 10**cur.exponent + int(fraction.ljust(cur.exponent, "0") or "0")
    if minor > MAX_MINOR_UNITS:
        raise InvalidRequestError(field, "is beyond the 64-bit minor-unit range")
    if minor == 0 and not allow_zero:
        raise InvalidRequestError(field, "must be greater than zero")
    return Money(minor, cur)
