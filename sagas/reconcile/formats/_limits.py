"""A statement file's size limits: bytes, entries and statements, each refused by name."""

from __future__ import annotations

from sagas.foundations import InvalidRequestError

DEFAULT_MAX_BYTES = 1_048_576
DEFAULT_MAX_LINES = 10_000
MAX_STATEMENTS = 1_000
"""Statements in one file: its import's record lists each, and stays well under Temporal's
payload limit."""


def refuse_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise InvalidRequestError(
            "FILE",
            f"is {size} bytes, over the limit of {max_bytes} (FUNDSAGA_STATEMENT_MAX_BYTES)",
        )


def refuse_lines(count: int, max_lines: int) -> None:
    if count > max_lines:
        raise InvalidRequestError(
            "FILE",
            f"holds more than {max_lines} entries, the limit (FUNDSAGA_STATEMENT_MAX_LINES)",
        )


def refuse_statements(count: int) -> None:
    if count > MAX_STATEMENTS:
        raise InvalidRequestError(
            "FILE", f"holds {count} statements, over the limit of {MAX_STATEMENTS} a file"
        )
