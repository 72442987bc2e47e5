from __future__ import annotations

import dataclasses
import re
from decimal import Decimal, localcontext
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagas import MAX_MINOR_UNITS, InvalidRequestError, Money, currency, parse_money

CODES = ("EUR", "JPY", "BHD", "USD")
PLAIN_FORMAT = "is not a plain decimal amount such as '12.34'"


def _parse_or_refusal(text: str, code: str) -> Money | InvalidRequestError:
    try:
        return parse_money(text, code)
    except InvalidRequestError as err:
        return err


@pytest.mark.parametrize(
    ("text", "code", "minor"),
    [
        ("12.34", "EUR", 1234),
        ("1.234", "BHD", 1234),
        ("5", "JPY", 5),
        ("0.01", "USD", 1),
        ("1.5", "EUR", 150),
        ("100", "EUR", 10000),
    ],
)
def test_a_plain_decimal_parses_to_minor_units(text: str, code: str, minor: int) -> None:
    money = parse_money(text, code)

    assert money.minor == minor
    assert money.currency == currency(code)


@pytest.mark.parametrize(
    ("text", "code", "problem"),
    [
        ("1.5", "JPY", "has more decimals than JPY allows (0)"),
        ("10.001", "USD", "has more decimals than USD allows (2)"),
        ("1.2345", "BHD", "has more decimals than BHD allows (3)"),
        ("0", "EUR", "must be greater than zero"),
        ("0.00", "EUR", "must be greater than zero"),
        ("-1", "EUR", PLAIN_FORMAT),
        ("+5", "EUR", PLAIN_FORMAT),
        ("1e3", "EUR", PLAIN_FORMAT),
        ("1,00", "EUR", PLAIN_FORMAT),
        ("1_000", "EUR", PLAIN_FORMAT),
        ("NaN", "EUR", PLAIN_FORMAT),
        ("Infinity", "EUR", PLAIN_FORMAT),
        (" 1", "EUR", PLAIN_FORMAT),
        ("1 ", "EUR", PLAIN_FORMAT),
        ("1\n", "EUR", PLAIN_FORMAT),
        ("1.", "EUR", PLAIN_FORMAT),
        (".5", "EUR", PLAIN_FORMAT),
        ("1.2.3", "EUR", PLAIN_FORMAT),
        ("", "EUR", PLAIN_FORMAT),
        ("\u0661", "EUR", PLAIN_FORMAT),  # ARABIC-INDIC DIGIT ONE
        ("\uff11", "EUR", PLAIN_FORMAT),  # FULLWIDTH DIGIT ONE
    ],
)
def test_an_amount_that_is_not_strictly_valid_is_refused_naming_amount(
    text: str, code: str, problem: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_money(text, code)

    assert caught.value.field == "amount"
    assert problem in caught.value.problem
    assert str(caught.value).startswith("amount: ")


@pytest.mark.parametrize("number", [12.5, 100, Decimal("1.00")])
def test_a_number_instead_of_text_is_refused(number: object) -> None:
    untyped: Any = number

    with pytest.raises(InvalidRequestError) as caught:
        parse_money(untyped, "EUR")

    assert caught.value.field == "amount"
    assert "must be a decimal string" in caught.value.problem


@pytest.mark.parametrize(
    ("text", "code"),
    [("92233720368547758.07", "EUR"), ("9223372036854775807", "JPY")],
)
def test_the_largest_64_bit_amount_is_accepted(text: str, code: str) -> None:
    assert parse_money(text, code).minor == MAX_MINOR_UNITS


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("92233720368547758.08", "EUR"),
        ("9223372036854775808", "JPY"),
        ("99999999999999999999", "JPY"),
        ("1" + "0" * 40, "EUR"),
    ],
)
def test_an_amount_beyond_64_bits_is_refused(text: str, code: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_money(text, code)

    assert caught.value.field == "amount"
    assert "64-bit" in caught.value.problem


def test_leading_zeros_do_not_make_a_small_amount_beyond_64_bits() -> None:
    outcome = _parse_or_refusal("0" * 20 + "1", "JPY")

    if isinstance(outcome, InvalidRequestError):
        assert "64-bit" not in outcome.problem
    else:
        assert outcome.minor == 1


@pytest.mark.parametrize("code", ["XYZ", "eur", "", "EURO", "XXX"])
def test_an_unknown_currency_is_refused_naming_currency(code: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_money("1", code)

    assert caught.value.field == "currency"
    assert repr(code) in caught.value.problem


def test_money_of_an_unknown_currency_is_refused() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        Money.of(100, "XYZ")

    assert caught.value.field == "currency"


@pytest.mark.parametrize(
    ("minor", "code", "text"),
    [
        (10000, "EUR", "100.00 EUR"),
        (5, "JPY", "5 JPY"),
        (1234, "BHD", "1.234 BHD"),
        (1, "USD", "0.01 USD"),
        (-150, "EUR", "-1.50 EUR"),
        (MAX_MINOR_UNITS, "EUR", "92233720368547758.07 EUR"),
    ],
)
def test_money_prints_with_the_currency_decimals(minor: int, code: str, text: str) -> None:
    assert str(Money.of(minor, code)) == text


def test_money_of_one_currency_adds_and_subtracts() -> None:
    assert Money.of(150, "EUR") + Money.of(250, "EUR") == Money.of(400, "EUR")
    assert Money.of(150, "EUR") - Money.of(250, "EUR") == Money.of(-100, "EUR")
    assert -Money.of(150, "EUR") == Money.of(-150, "EUR")


@pytest.mark.parametrize("combine", [Money.__add__, Money.__sub__])
def test_money_of_two_currencies_does_not_combine(combine: Any) -> None:
    with pytest.raises(ValueError, match="cannot combine EUR with USD"):
        combine(Money.of(100, "EUR"), Money.of(100, "USD"))


@pytest.mark.parametrize("minor", [1.0, 1.5, True, Decimal(1), "1"])
def test_money_refuses_minor_units_that_are_not_an_int(minor: object) -> None:
    untyped: Any = minor

    with pytest.raises(TypeError, match="must be an int"):
        Money(untyped, currency("EUR"))


@pytest.mark.parametrize("minor", [MAX_MINOR_UNITS + 1, -MAX_MINOR_UNITS - 1])
def test_money_refuses_minor_units_beyond_64_bits(minor: int) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        Money.of(minor, "EUR")

    assert caught.value.field == "amount"


def test_money_is_immutable() -> None:
    money = Money.of(100, "EUR")

    with pytest.raises(dataclasses.FrozenInstanceError):
        money.minor = 200  # type: ignore[misc]


@settings(database=None)
@given(minor=st.integers(1, MAX_MINOR_UNITS), code=st.sampled_from(CODES))
def test_amount_text_parses_back_to_the_same_money(minor: int, code: str) -> None:
    money = Money.of(minor, code)

    assert parse_money(money.amount_text(), code) == money


def _normalised(text: str, exponent: int) -> str | None:
    """What a valid amount prints as with `exponent` decimals, or None for an invalid one."""
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) is None:
        return None
    if len(text.partition(".")[2]) > exponent:
        return None
    value = Decimal(text)
    with localcontext(prec=200):
        if not 0 < value.scaleb(exponent) <= MAX_MINOR_UNITS:
            return None
    return f"{value:.{exponent}f}"


AMOUNT_LIKE = st.from_regex(r"[+-]?[0-9]{0,22}(\.[0-9]{0,5})?", fullmatch=True)


@settings(database=None, max_examples=500)
@given(text=st.one_of(st.text(), AMOUNT_LIKE), code=st.sampled_from(CODES))
def test_any_text_is_refused_or_parses_to_its_normalised_amount(text: str, code: str) -> None:
    money = _parse_or_refusal(text, code)

    if isinstance(money, InvalidRequestError):
        assert money.field == "amount"
        return
    assert money.minor > 0
    assert money.currency.code == code
    assert money.amount_text() == _normalised(text, currency(code).exponent)


CANONICAL_AMOUNT = st.from_regex(r"(0|[1-9][0-9]{0,19})(\.[0-9]{1,5})?", fullmatch=True)


@settings(database=None, max_examples=500)
@given(text=CANONICAL_AMOUNT, code=st.sampled_from(CODES))
def test_every_valid_amount_without_leading_zeros_is_accepted(text: str, code: str) -> None:
    expected = _normalised(text, currency(code).exponent)

    if expected is None:
        with pytest.raises(InvalidRequestError):
            parse_money(text, code)
    else:
        assert parse_money(text, code).amount_text() == expected
