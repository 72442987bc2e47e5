"""Durations as people write them in options and configuration files: `100ms`, `10s`, `5m`, `2h`."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from sagas.foundations import InvalidRequestError

_UNITS = {
    "ms": Decimal("0.001"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
    "d": Decimal(86400),
}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")


def parse_duration(value: object, field: str) -> timedelta:
    """A duration from `10s`, `500ms`, `1.5m`, `2h`, `1d` or a number of seconds; `field` names
    it in the error."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise InvalidRequestError(field, "must be a duration such as 500ms, 10s, 5m or 2h")
    match = _PATTERN.match(str(value))
    if match is None:
        raise InvalidRequestError(
            field, f"must be a duration such as 500ms, 10s, 5m or 2h, got {value!r}"
        )
    try:
        seconds = Decimal(match.group(1)) * _UNITS[match.group(2) or "s"]
    except InvalidOperation:
        raise InvalidRequestError(field, f"is not a number: {value!r}") from None
    return timedelta(seconds=float(seconds))


def format_duration(value: timedelta) -> str:
    """`100 ms`, `10 s`, `2.5 s`, `1 h 33 min 45 s`: exact to the millisecond."""
    ms = round(value.total_seconds() * 1000)
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{_seconds(ms)} s"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else ""]
    parts.append(f"{_seconds(rest)} s" if rest else "")
    return " ".join(part for part in parts if part)


def _seconds(ms: int) -> str:
    whole, fraction = divmod(ms, 1000)
    return f"{whole}.{fraction:03d}".rstrip("0") if fraction else str(whole)
