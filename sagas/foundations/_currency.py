"""ISO 4217 currencies and their minor-unit exponents, from the `iso4217` data package."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import iso4217

from sagas.foundations._errors import InvalidRequestError


@dataclass(frozen=True, slots=True)
class Currency:
    """An active ISO 4217 currency: its code and how many decimals its minor unit has."""

    code: str
    exponent: int


@functools.cache
def _table() -> dict[str, int]:
    exponents: dict[str, int] = {}
    for code, row in iso4217.raw_table.items():
        minor = row.get("CcyMnrUnts")
        if code and isinstance(minor, str) and minor.isdigit():
            exponents[code] = int(minor)
    return exponents


def currency(code: str, *, field: str = "currency") -> Currency:
    """Look up an active currency by its upper-case code; refuse anything else."""
    exponent = _table().get(code)
    if exponent is None:
        raise InvalidRequestError(
            field, f"unknown currency {code!r}: use an ISO 4217 code such as EUR"
        )
    return Currency(code, exponent)
