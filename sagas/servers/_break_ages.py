"""Open reconciliation breaks by kind and age, as the collector publishes them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sagas.reconcile import CLOSED_STATUSES, BreakKind, BreakView


@dataclass(frozen=True)
class OpenBreaks:
    kind: BreakKind
    by_age: dict[str, int]
    """How many are open, by age bucket (BREAK_AGE_BUCKETS)."""
    oldest: timedelta


BREAK_AGE_BUCKETS = (
    ("1h", timedelta(hours=1)),
    ("1d", timedelta(days=1)),
    ("7d", timedelta(days=7)),
)
"""Open breaks are counted by the first bucket their age is under; older ones as `older`."""


def open_breaks(breaks: Iterable[BreakView], now: datetime) -> list[OpenBreaks]:
    """Per kind (every kind, zero when none), the breaks still open by age."""
    found = []
    for kind in BreakKind:
        ages = [
            now - b.opened_at for b in breaks if b.kind is kind and b.status not in CLOSED_STATUSES
        ]
        by_age = {name: 0 for name, _ in BREAK_AGE_BUCKETS} | {"older": 0}
        for age in ages:
            bucket = next((name for name, limit in BREAK_AGE_BUCKETS if age < limit), "older")
            by_age[bucket] += 1
        found.append(OpenBreaks(kind, by_age, max(ages, default=timedelta())))
    return found
