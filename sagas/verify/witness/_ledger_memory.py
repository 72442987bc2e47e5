"""The verifier's memory of the journal: the newest sealed chain head this verifier accepted.

Anchors prove the chain up to the newest anchor the anchor store still holds; an owner who cuts
the journal's tail can drop the newest anchors with it. What this verifier once accepted does
not go away with them: a journal that now ends before it, or holds another entry there, was
rolled back.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sagas.audit import Checkpoint
from sagas.foundations import DEFAULT_HOME, InvalidRequestError
from sagas.ledger import ChainHead, Ledger

LEDGER_VERIFIED_HEAD = DEFAULT_HOME / "ledger-verified-head.json"
"""Where `fundsaga ledger verify` remembers the newest journal head it accepted."""


def rollback_findings(ledger: Ledger, head: ChainHead, memory: Path) -> list[str]:
    """Findings when the journal no longer reaches, or no longer holds, the remembered head."""
    remembered = remembered_head(memory)
    if remembered is None:
        return []
    number, when = remembered.sequence, f"{remembered.taken_at:%Y-%m-%d %H:%M}Z"
    if head.sequence < number:
        return [
            f"journal rolled back: it ends at #{head.sequence}, but this verifier accepted "
            f"entry #{number} on {when}"
        ]
    if ledger.entry_hash_at(number) != remembered.hash:
        return [
            f"journal rolled back: entry #{number} is not the entry this verifier accepted "
            f"there on {when}: the chain was rewritten from it"
        ]
    return []


def remembered_head(memory: Path) -> Checkpoint | None:
    try:
        text = memory.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return Checkpoint.from_json(text)
    except InvalidRequestError as err:
        raise InvalidRequestError(str(memory), err.problem) from None


def remember_head(memory: Path, head: ChainHead) -> None:
    """Keep `head` unless a later one is remembered already."""
    remembered = remembered_head(memory)
    if head.sequence == 0 or (remembered is not None and remembered.sequence >= head.sequence):
        return
    memory.parent.mkdir(parents=True, exist_ok=True)
    accepted = Checkpoint(head.sequence, head.entry_hash, datetime.now(UTC))
    memory.write_text(accepted.to_json(), encoding="utf-8")
