"""Where each line of an imported statement went: new, already known (and in which earlier
file), or refused (and why). The sums must close: read = new + known + refused, or the import
fails and nothing of it is kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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
    position: int = 1
    """1 for the file's first statement."""
    currency: str = ""
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

    def facts(
        self, known_room: int = MAX_LISTED, refusal_room: int = MAX_LISTED
    ) -> dict[str, JsonValue]:
        """As the audit record states it: counts, and at most `known_room` earlier files and
        `refusal_room` refusals by name; beyond, it counts them."""
        files = self.known_in.most_common()
        known_in: list[JsonValue] = [
            {"file_id": file_id, "name": self.file_names.get(file_id, ""), "lines": count}
            for file_id, count in files[:known_room]
        ]
        refusals: list[JsonValue] = [
            {"position": r.position, "reason": r.reason, "break_id": r.break_id}
            for r in self.refusals[:refusal_room]
        ]
        return {
            "statement_id": self.statement_id,
            "position": self.position,
            "account": self.account,
            "currency": self.currency,
            "copy_indicator": self.copy_indicator,
            "read": self.read,
            "new": self.new,
            "known": self.known,
            "refused": self.refused,
            "zero_amount": self.zero_amount,
            "known_in": known_in,
            "known_in_more_files": len(files) - len(known_in),
            "refusals": refusals,
            "refusals_more": self.refused - len(refusals),
        }


def file_facts(statements: Sequence[StatementAccount]) -> list[JsonValue]:
    """Each statement's facts, in the file's order; the names listed (earlier files, refusals)
    at most MAX_LISTED of each for the whole file, so that the record stays small whatever the
    file holds."""
    known_room = refusal_room = MAX_LISTED
    listed: list[JsonValue] = []
    for statement in statements:
        listed.append(statement.facts(known_room, refusal_room))
        known_room -= min(known_room, len(statement.known_in))
        refusal_room -= min(refusal_room, statement.refused)
    return listed


def check_file(statements: Sequence[StatementAccount], read: int) -> None:
    """Refuse to go on when the file's `read` lines are not its statements' lines, each new,
    known or refused."""
    counted = sum(s.read for s in statements)
    placed = sum(s.new + s.known + s.refused for s in statements)
    if read != counted or read != placed:
        raise AccountingError(
            "FILE",
            f"{read} lines read, but its {len(statements)} statement(s) count {counted} and "
            f"place {placed}: nothing kept",
        )
