"""The interface every audit store backend implements."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import JsonValue

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._record import AuditRecord
from sagas.audit._verify import VerifyResult


class AuditStore(Protocol):
    """An append-only, hash-chained audit trail."""

    def append(
        self, *, kind: str, saga_id: str, dedupe_key: str, payload: dict[str, JsonValue]
    ) -> AuditRecord:
        """Durable when it returns; a known `dedupe_key` returns the existing record.

        Raises a TransientError subclass when the store is unreachable, so callers retry.
        """
        ...

    def find(self, dedupe_key: str) -> AuditRecord | None:
        """The record appended with `dedupe_key`, if any."""
        ...

    def records(self, *, saga_id: str | None = None) -> list[AuditRecord]:
        """Every record (or every one about `saga_id`), in sequence order."""
        ...

    def head(self) -> AuditRecord | None:
        """The record with the highest sequence number, if any."""
        ...

    def now(self) -> datetime:
        """The time the store stamps records with: a table's database server's clock; the
        writing host's for a directory, or a SQLite file."""
        ...

    def verify(self, checkpoint: Checkpoint | None = None) -> VerifyResult:
        """Recompute the chain from what is stored and name the first bad record."""
        ...

    def close_connections(self) -> None:
        """Release connections; the store may be used again after."""
        ...
