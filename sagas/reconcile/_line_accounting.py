"""Where each line of an imported statement went: new, already known (and in which earlier
file), or refused (and why). The sums must close: read = new + known + refused, or the import
fails and nothing of it is kept."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import JsonValue

from sagas.foundations import InvalidRequestError

MAX_LISTED = 20
"""Refusals and earlier files an audit record lists by name; beyond, it counts them."""


class AccountingError(InvalidRequestError):
    """The lines of a statement do not add up: an importer bug, never a bad file. Raised
    before the import's transaction commits, so nothing of it is kept; non-retryable, as a
    retry would add up the same."""


@dataclass(frozen=True, kw_only=True)
class LineRefusal:
    position: int
    """1 for the statement's first line."""
    reason: str
    break_id: int | None = None


@dataclass(kw_only=True)
class StatementAccount:
    """The account of one statement's lines, as its import kept them."""

    statement_id: str
    account: str
    copy_indicator: str | None
    read: int
    new: int = 0
    known: int = 0
    zero_amount: int = 0
    """Of the read lines, those of 0.00: kept (marked), never matched."""
    known_in: Counter[int] = field(default_factory=Counter)
    """Earlier file id: how many of this statement's lines it holds already."""
    file_names: dict[int, str] = field(default_factory=dict)
    refusals: list[LineRefusal] = field(default_factory=list)

    @property
    def refused(self) -> int:
        return len(self.refusals)

    def check(self) -> None:
        """Refuse to go on when a line went nowhere, or twice."""
        if self.read != self.new + self.known + self.refused:
            raise AccountingError(
                f"statement {self.statement_id}",
                f"{self.read} lines read, but {self.new} new + {self.known} known + "
                f"{self.refused} refused: nothing kept",
            )

    def facts(self) -> dict[str, JsonValue]:
        """As the audit record states it: counts, and at most MAX_LISTED names of each list."""
        files = self.known_in.most_common()
        known_in: list[JsonValue] = [
            {"file_id": file_id, "name": self.file_names.get(file_id, ""), "lines": count}
            for file_id, count in files[:MAX_LISTED]
        ]
        refusals: list[JsonValue] = [
            {"position": r.position, "reason": r.reason, "break_id": r.break_id}
            for r in self.refusals[:MAX_LISTED]
        ]
        return {
            "statement_id": self.statement_id,
            "account": self.account,
            "copy_indicator": self.copy_indicator,
            "read": self.read,
            "new": self.new,
            "known": self.known,
            "refused": self.refused,
            "zero_amount": self.zero_amount,
            "known_in": known_in,
            "known_in_more_files": max(0, len(files) - MAX_LISTED),
            "refusals": refusals,
            "refusals_more": max(0, self.refused - MAX_LISTED),
        }
