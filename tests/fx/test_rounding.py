"""The converted amount is rounded half-even to the target's minor units; rates are decimals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from sagas import parse_money
from sagas.fx import (
    ConversionTooSmallError,
    FixedRateSource,
    RateUnavailableError,
    convert_amount,
)


@pytest.mark.parametrize(
    ("amount", "code", "rate", "target", "expected", "remainder"),
    [
        ("10.00", "EUR", "161.25", "JPY", "1612", "0.5"),  # a tie goes to the even yen
        ("10.10", "EUR", "161.25", "JPY", "1629", "-0.375"),
        ("10.20", "EUR", "161.25", "JPY", "1645", "-0.25"),
        ("0.02", "EUR", "125", "JPY", "2", "0.5"),  # 2.5 → 2: even
        ("0.06", "EUR", "125", "JPY", "8", "-0.5"),  # 7.5 → 8: even
        ("10.00", "EUR", "0.33315", "KWD", "3.332", "-0.0005"),  # 3.3315 → 3.332
        ("10.00", "EUR", "0.33325", "BHD", "3.332", "0.0005"),  # 3.3325 → 3.332
        ("1", "JPY", "0.0065", "EUR", "0.01", "-0.0035"),
        ("1.000", "KWD", "3.00215", "EUR", "3.00", "0.00215"),
    ],
)
def test_half_even_to_the_target_minor_units(
    amount: str, code: str, rate: str, target: str, expected: str, remainder: str
) -> None:
    conversion = convert_amount(parse_money(amount, code), rate, target)

    assert conversion.target == parse_money(expected, target)
    assert conversion.remainder == Decimal(remainder)
    assert abs(conversion.remainder) <= Decimal("0.5").scaleb(-conversion.target.currency.exponent)


def test_no_float_creeps_in_with_a_long_rate() -> None:
    conversion = convert_amount(parse_money("99999999.99", "EUR"), "1.000000000000000001", "USD")

    assert conversion.converted == Decimal("99999999.99000000009999999999")
    assert conversion.target == parse_money("99999999.99", "USD")


def test_an_amount_that_rounds_to_nothing_is_refused() -> None:
    with pytest.raises(ConversionTooSmallError):
        convert_amount(parse_money("1", "JPY"), "0.004", "EUR")


@pytest.mark.parametrize("rate", ["0", "-1.2", "NaN", "Infinity", "1,5", ""])
def test_a_rate_that_is_not_a_positive_decimal_is_refused(rate: str) -> None:
    with pytest.raises(RateUnavailableError):
        convert_amount(parse_money("1.00", "EUR"), rate, "USD")


def test_the_fixed_source_quotes_per_pair_until_its_ttl_after_the_time_asked() -> None:
    asked = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    source = FixedRateSource({("EUR", "JPY"): "161.25"}, ttl=timedelta(seconds=30))

    quote = source.quote("EUR", "JPY", asked)

    assert (quote.rate, quote.expires_at) == ("161.25", asked + timedelta(seconds=30))
    with pytest.raises(RateUnavailableError):
        source.quote("JPY", "EUR", asked)
