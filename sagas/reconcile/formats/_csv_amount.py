"""An amount cell of a bank's CSV export as its bank writes it: a sign before or after the
digits or parentheses (`-1.234,56`, `+12.50`, `12,50-`, `(1,234.56)`), a decimal separator and
a thousands separator that only separates whole groups of three."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from sagas.foundations import InvalidRequestError

_MINUS = ("-", "\u2212")
_SPACES = ("\u00a0", "\u202f")
"""A space as thousands separator is often written as a no-break space (narrow in French)."""


@dataclass(frozen=True, kw_only=True)
class CellAmount:
    """The cell read: its magnitude as a plain decimal (`1234.56`) and the sign it carries."""

    plain: str
    negative: bool
    signed: bool
    """Whether the cell carries a sign at all (`+`, `-` or parentheses)."""


def cell_amount(cell: str, field: str, *, decimal: str, thousands: str) -> CellAmount:
    """The amount in `cell`, refused naming `field` when it is not written in the notation the
    mapping declares (so a file read with the wrong separators is refused, never misread)."""
    text = cell.strip()
    negative, signed, body = _sign(text)
    if thousands == " ":
        for space in _SPACES:
            body = body.replace(space, " ")
    if not _pattern(decimal, thousands).fullmatch(body):
        shown = f"decimal {decimal!r}" + (f", thousands {thousands!r}" if thousands else "")
        raise InvalidRequestError(
            field, f"{cell!r} is no amount written as the mapping says ({shown})"
        )
    plain = (body.replace(thousands, "") if thousands else body).replace(decimal, ".")
    return CellAmount(plain=plain, negative=negative, signed=signed)


def _sign(text: str) -> tuple[bool, bool, str]:
    """(negative, signed, the digits) of a cell with at most one sign."""
    if text.startswith("(") and text.endswith(")"):
        return True, True, text[1:-1].strip()
    if text.startswith(_MINUS):
        return True, True, text[1:].lstrip()
    if text.endswith(_MINUS):
        return True, True, text[:-1].rstrip()
    if text.startswith("+"):
        return False, True, text[1:].lstrip()
    return False, False, text


@cache
def _pattern(decimal: str, thousands: str) -> re.Pattern[str]:
    fraction = rf"(?:{re.escape(decimal)}[0-9]+)?"
    if not thousands:
        return re.compile(rf"[0-9]+{fraction}")
    grouped = rf"[0-9]{{1,3}}(?:{re.escape(thousands)}[0-9]{{3}})+"
    return re.compile(rf"(?:{grouped}|[0-9]+){fraction}")
