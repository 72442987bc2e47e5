"""An amount as a statement states it, into Money: the one rule every format's reader applies.

ISO 20022 amounts carry up to five fraction digits whatever the currency, and banks write
`8.850` for 8.85 EUR; such an amount is read when it is exact in the currency's minor units,
and refused, naming the field, when it is not (`8.855` EUR, `100.5` JPY)."""

from __future__ import annotations

import re

from sagas.foundations import InvalidRequestError, Money, currency, parse_money

MAX_FRACTION_DIGITS = 5
"""ISO 20022's ActiveOrHistoricCurrencyAndAmount allows five; no format's amount needs more."""

_PLAIN = re.compile(r"(?P<units>[0-9]+)(?:\.(?P<fraction>[0-9]*))?")


def statement_money(text: str, code: str, *, field: str) -> Money:
    """`text`, a plain unsigned decimal (`1234.5`, `100.`, `8.850`), as Money in `code`; zero is
    an amount (a 0.00 line is kept and marked)."""
    cur = currency(code, field=field)
    match = _PLAIN.fullmatch(text)
    if match is None:
        return parse_money(text, cur.code, field=field, allow_zero=True)
    fraction = match["fraction"] or ""
    if len(fraction) > MAX_FRACTION_DIGITS:
        raise InvalidRequestError(
            field, f"{text!r} has more than {MAX_FRACTION_DIGITS} decimals, more than any statement"
        )
    kept, beyond = fraction[: cur.exponent], fraction[cur.exponent :]
    if beyond.strip("0"):
        raise InvalidRequestError(
            field,
            f"{text!r} is no whole number of {cur.code} minor units ({cur.exponent} decimals)",
        )
    plain = match["units"] + (f".{kept}" if kept else "")
    return parse_money(plain, cur.code, field=field, allow_zero=True)
