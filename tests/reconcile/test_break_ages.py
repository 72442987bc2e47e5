"""Open breaks as the collector publishes them: every kind, by age, the oldest's age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sagas.reconcile import BreakKind, BreakStatus, BreakView
from sagas.servers import open_breaks

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


def found(kind: BreakKind, age: timedelta, status: BreakStatus = BreakStatus.OPEN) -> BreakView:
    return BreakView(
        break_id=1,
        kind=kind,
        status=status,
        reference=None,
        line_id=None,
        entry_id=None,
        ledger_amount=None,
        statement_amount=None,
        detail="",
        opened_at=NOW - age,
        updated_at=NOW,
        note="",
        evidence="",
        explained_by=None,
        resolved_by=None,
        adjustment_entry_id=None,
        version=1,
    )


def test_open_breaks_are_counted_by_kind_and_age_and_closed_ones_not() -> None:
    breaks = [
        found(BreakKind.DUPLICATE, timedelta(minutes=5)),
        found(BreakKind.DUPLICATE, timedelta(hours=30), BreakStatus.EXPLAINED),
        found(BreakKind.DUPLICATE, timedelta(days=9)),
        found(BreakKind.FEE_DIFFERENCE, timedelta(days=9), BreakStatus.RESOLVED),
        found(BreakKind.AMOUNT_MISMATCH, timedelta(days=2), BreakStatus.MATCHED),
    ]

    by_kind = {entry.kind: entry for entry in open_breaks(breaks, NOW)}

    assert set(by_kind) == set(BreakKind)
    duplicate = by_kind[BreakKind.DUPLICATE]
    assert duplicate.by_age == {"1h": 1, "1d": 0, "7d": 1, "older": 1}
    assert duplicate.oldest == timedelta(days=9)
    assert by_kind[BreakKind.FEE_DIFFERENCE].by_age == {"1h": 0, "1d": 0, "7d": 0, "older": 0}
    assert by_kind[BreakKind.FEE_DIFFERENCE].oldest == timedelta()
