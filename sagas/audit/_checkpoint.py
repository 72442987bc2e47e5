"""A checkpoint: the chain head kept elsewhere, so a truncated tail is detected too."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from sagas.audit._record import format_timestamp
from sagas.foundations import InvalidRequestError

_HEX_HASH = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Checkpoint:
    sequence: int
    """The head's sequence number when taken; 0 for an empty chain."""
    hash: str
    """The head's hash; GENESIS_HASH for an empty chain."""
    taken_at: datetime
    """When it was taken (UTC), by the store's clock (see AuditStore.now)."""

    def to_json(self) -> str:
        fields = {
            "sequence": self.sequence,
            "hash": self.hash,
            "taken_at": format_timestamp(self.taken_at),
        }
        return json.dumps(fields, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Checkpoint:
        """The checkpoint in `text`; InvalidRequestError("checkpoint", ...) when malformed."""
        try:
            fields = json.loads(text)
            checkpoint = cls(fields["sequence"], fields["hash"], _utc(fields["taken_at"]))
        except (ValueError, TypeError, KeyError) as exc:
            raise InvalidRequestError("checkpoint", f"not a checkpoint: {exc!r}") from exc
        if type(checkpoint.sequence) is not int or checkpoint.sequence < 0:
            raise InvalidRequestError("checkpoint", "sequence must be a whole number >= 0")
        if not isinstance(checkpoint.hash, str) or not _HEX_HASH.fullmatch(checkpoint.hash):
            raise InvalidRequestError("checkpoint", "hash must be 64 lowercase hex digits")
        return checkpoint


def _utc(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        raise ValueError(f"taken_at {text!r} has no time zone")
    return value.astimezone(UTC)
