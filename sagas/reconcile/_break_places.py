"""Where a break sits beyond its line and entry, as its key says (the keys `_store`,
`_balance_breaks` and `Finding.key` make): the statement files it is about, the place of a
refused line in its file, the transaction of a batch line."""

from __future__ import annotations

from dataclasses import dataclass

from sagas.reconcile._breaks import BreakKind


@dataclass(frozen=True, kw_only=True)
class BreakPlaces:
    file_ids: tuple[int, ...] = ()
    refused_at: tuple[int, int] | None = None
    """Of a conflict: (file id, place of the refused line in it, 1 for the first)."""
    transaction_id: int | None = None


def break_places(key: str) -> BreakPlaces:
    kind, *parts = key.split(":")
    numbers = [int(part) for part in parts if part.isdigit()]
    if kind == BreakKind.STATEMENT_UNBALANCED and parts[:1] == ["file"] and len(numbers) == 1:
        return BreakPlaces(file_ids=(numbers[0],))
    if kind == BreakKind.STATEMENT_GAP and len(numbers) == 2:
        return BreakPlaces(file_ids=(numbers[0], numbers[1]))
    if kind == BreakKind.STATEMENT_CONFLICT and len(numbers) == 3:
        return BreakPlaces(file_ids=(numbers[1],), refused_at=(numbers[1], numbers[2]))
    last = parts[-1] if parts else ""
    if last.startswith("t") and last[1:].isdigit():
        return BreakPlaces(transaction_id=int(last[1:]))
    return BreakPlaces()
