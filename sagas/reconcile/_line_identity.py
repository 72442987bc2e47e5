"""A statement line's identity: what makes a line delivered again the same booking, and two
bookings that look alike two lines.

A line the bank gives a reference is identified by its account, that reference and the how-many-th
time the reference occurs in its statement; it is the same booking again only when its content
(direction, amount, currency, booking date) is the same too, and a conflict otherwise. A line
with no reference is identified by its account, its content (direction, amount, currency, booking
and value date, end-to-end id) and the how-many-th time that content occurs in its statement:
two equal fees booked the same day are two lines, and the statement sent again holds both once
more. Nothing derived from the statement's id or a line's position is ever part of it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sagas.reconcile.formats import StatementLine

IDENTITY_LENGTH = 64


@dataclass(frozen=True, kw_only=True)
class LineIdentity:
    key: str
    """SHA-256 (hex) of the identity's canonical text; unique per account."""
    occurrence: int
    """1 for the first line of this reference (or content) in its statement, 2 for the next."""


def booking(line: StatementLine) -> tuple[str, int, str, str]:
    """What must agree for a line under a known reference to be the same booking."""
    return (
        line.direction.value,
        line.amount.minor,
        line.amount.currency.code,
        line.booking_date.isoformat(),
    )


def _content(line: StatementLine) -> str:
    return "|".join(
        (
            *map(str, booking(line)),
            line.value_date.isoformat(),
            line.end_to_end_id or "",
        )
    )


def line_identities(account: str, lines: Sequence[StatementLine]) -> list[LineIdentity]:
    """Each line's identity, in the statement's order."""
    seen: Counter[str] = Counter()
    identities = []
    for line in lines:
        basis = (
            f"reference|{line.bank_reference}"
            if line.bank_reference is not None
            else f"content|{_content(line)}"
        )
        seen[basis] += 1
        canonical = f"{account}\n{basis}\n{seen[basis]}"
        identities.append(
            LineIdentity(key=hashlib.sha256(canonical.encode()).hexdigest(), occurrence=seen[basis])
        )
    return identities
