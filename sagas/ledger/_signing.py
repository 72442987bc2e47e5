"""Signed rows: each journal entry, and each hold as it stands, carry the writer's signature.

The chain proves that no entry changed after the next one was written, and the anchors that
the chain was not re-hashed; a signature proves that the ledger's own writer made the row at
all, so an entry appended by anyone else with write access, or a hold closed behind the
ledger's back, is a finding even after the latest anchor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC
from typing import Protocol

from pydantic import JsonValue
from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import canonical_json, sha256_hex
from sagas.ledger._models import Hold, JournalEntry, JournalSeal

SIGNER_INFO = "fundsaga_signer"
"""The session.info key under which the Ledger hands its signer to the code that writes."""

SignatureProblem = Callable[[str, str, bytes], str | None]
"""(key_id, signature, message) -> why the signature does not prove the message, or None."""


class RowSigner(Protocol):
    """What signs ledger rows: the worker's Ed25519 key (sagas.audit.SigningKey is one)."""

    @property
    def key_id(self) -> str: ...

    def sign(self, message: bytes) -> str: ...


def entry_message(entry_hash: str) -> bytes:
    """What a writer signs for the entry whose hash is `entry_hash`."""
    return f"fundsaga journal entry {entry_hash}".encode()


def hold_message(row: Hold) -> bytes:
    content: dict[str, JsonValue] = {
        "hold_key": row.hold_key,
        "account_id": row.account_id,
        "currency": row.currency,
        "amount": row.amount,
        "status": row.status,
        "saga_id": row.saga_id,
        "created_at": row.created_at.astimezone(UTC).isoformat(),
        "closed_at": None if row.closed_at is None else row.closed_at.astimezone(UTC).isoformat(),
    }
    return f"fundsaga hold {sha256_hex(canonical_json(content))}".encode()


def signer_of(session: Session) -> RowSigner | None:
    signer: RowSigner | None = session.info.get(SIGNER_INFO)
    return signer


def sign_hold(session: Session, row: Hold) -> None:
    """Sign the hold as it now stands (call after every change, before the flush)."""
    signer = signer_of(session)
    if signer is None:
        row.key_id, row.signature = None, None
        return
    row.key_id, row.signature = signer.key_id, signer.sign(hold_message(row))


def signature_findings(session: Session, problem: SignatureProblem) -> Iterator[str]:
    """Each entry and hold without a signature that proves it, entries in chain order (those
    not sealed yet last)."""
    entries = (
        select(
            JournalSeal.sequence,
            JournalEntry.idempotency_key,
            JournalEntry.entry_hash,
            JournalEntry.key_id,
            JournalEntry.signature,
        )
        .outerjoin(JournalSeal, JournalSeal.entry_id == JournalEntry.entry_id)
        .order_by(JournalSeal.sequence.is_(None), JournalSeal.sequence, JournalEntry.entry_id)
        .execution_options(yield_per=1000)
    )
    for sequence, key, digest, key_id, signature in session.execute(entries):
        found = _problem(key_id, signature, entry_message(digest), problem)
        if found is not None:
            where = "unsealed entry" if sequence is None else f"entry #{sequence}"
            yield f"{where} {key!r}: {found}"
    holds = select(Hold).order_by(Hold.hold_id).execution_options(yield_per=1000)
    for row in session.scalars(holds):
        found = _problem(row.key_id, row.signature, hold_message(row), problem)
        if found is not None:
            changed = "" if row.signature is None else ": changed outside the ledger"
            yield f"hold {row.hold_key!r} ({row.status}): {found}{changed}"


def _problem(
    key_id: str | None, signature: str | None, message: bytes, problem: SignatureProblem
) -> str | None:
    if key_id is None or signature is None:
        return "is not signed"
    return problem(key_id, signature, message)
