"""Where a break sits beyond its line and entry, as its key says (the keys `_store`,
`_balance_breaks` and `Finding.key` make): the statements it is about, the place of a refused
line in its file, the transaction of a batch line."""

from __future__ import annotations

from dataclasses import dataclass

from sagas.reconcile.matching import BreakKind


@dataclass(frozen=True, kw_only=True)
class BreakPlaces:
    statement_ids: tuple[int, ...] = ()
    """Of a balance break: the statements (`bank_statement_id`) it is about. A key written
    before a file could hold several names its file, whose one statement has the file's id."""
    refused_at: tuple[int, int, int] | None = None
    """Of a conflict: (file id, the statement's place in the file, the refused line's place in
    the statement), each place 1 for the first."""
    transaction_id: int | None = None

    @property
    def file_ids(self) -> tuple[int, ...]:
        """The file of a refused line (a balance break's files are its statements')."""
        return () if self.refused_at is None else (self.refused_at[0],)


def break_places(key: str) -> BreakPlaces:
    kind, *parts = key.split(":")
    numbers = [int(part) for part in parts if part.isdigit()]
    if (
        kind == BreakKind.STATEMENT_UNBALANCED
        and parts[:1] in (["statement"], ["file"])
        and len(numbers) == 1
    ):
        return BreakPlaces(statement_ids=(numbers[0],))
    if kind == BreakKind.STATEMENT_GAP and len(parts) == 2 and len(numbers) == 2:
        return BreakPlaces(statement_ids=(numbers[0], numbers[1]))
    if kind == BreakKind.STATEMENT_CONFLICT and len(parts) == 3:
        return _refused(parts)
    last = parts[-1] if parts else ""
    if last.startswith("t") and last[1:].isdigit():
        return BreakPlaces(transaction_id=int(last[1:]))
    return BreakPlaces()


def _refused(parts: list[str]) -> BreakPlaces:
    """`{held line id}:{where}:{place}`, `where` the file's id for its first statement and
    `{file id}.{statement's place}` for a later one."""
    _, where, place = parts
    file, _, statement = where.partition(".")
    if not (file.isdigit() and place.isdigit() and (statement.isdigit() or not statement)):
        return BreakPlaces()
    return BreakPlaces(refused_at=(int(file), int(statement or 1), int(place)))
