"""Chain verification over what a backend actually stores, naming the first bad record.

A backend hands over its stored entries by slot (the sequence number it files them under:
the primary key, or the file name), each either a readable record or why it is not, plus
anything stored that is not a record at all. The first bad sequence number is the first
slot whose record is not the one the intact chain had there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._keys import Keyring
from sagas.audit._record import (
    GENESIS_HASH,
    AuditRecord,
    compute_hash,
    format_timestamp,
    signature_problem,
)

Stored = AuditRecord | str
"""A readable record, or a sentence saying why the stored entry cannot be read."""


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    """True when the whole chain (and the checkpoint, if given) checks out."""
    records: int
    """How many records are stored (readable or not)."""
    first_bad_sequence: int | None
    """The first sequence number whose record was changed, removed or forged."""
    problem: str | None
    """What is wrong, in one sentence."""


@dataclass(frozen=True)
class _Finding:
    sequence: int
    problem: str


def verify_chain(
    stored: Mapping[int, Stored],
    keyring: Keyring,
    checkpoint: Checkpoint | None = None,
    strays: Sequence[str] = (),
) -> VerifyResult:
    """Check continuity from 1, every hash, signature and link, that no record's time goes
    back past its predecessor's, and the checkpoint."""
    count = len(stored)
    finding = _walk(stored, keyring)
    end = finding.sequence - 1 if finding else max(stored, default=0)
    against_checkpoint = _against_checkpoint(stored, end, checkpoint, walk_failed=bool(finding))
    finding = against_checkpoint or finding
    if finding:
        return VerifyResult(False, count, finding.sequence, finding.problem)
    if strays:
        return VerifyResult(False, count, None, strays[0])
    return VerifyResult(True, count, None, None)


def _walk(stored: Mapping[int, Stored], keyring: Keyring) -> _Finding | None:
    previous: AuditRecord | None = None
    for sequence in range(1, max(stored, default=0) + 1):
        entry = stored.get(sequence)
        prev_hash = previous.hash if previous else GENESIS_HASH
        problem = _problem(sequence, entry, prev_hash, keyring) or _backwards(entry, previous)
        if problem:
            return _inserted_before(stored, sequence) or _Finding(sequence, problem)
        assert isinstance(entry, AuditRecord)
        previous = entry
    return None


def _backwards(entry: Stored | None, previous: AuditRecord | None) -> str | None:
    """Why a well-formed record's time goes back past its predecessor's, or None."""
    if not isinstance(entry, AuditRecord) or previous is None:
        return None
    if entry.recorded_at >= previous.recorded_at:
        return None
    return (
        f"record {entry.sequence} is stamped {format_timestamp(entry.recorded_at)}, before "
        f"record {previous.sequence} ({format_timestamp(previous.recorded_at)}): "
        "its time goes backwards"
    )


def _problem(sequence: int, entry: Stored | None, prev_hash: str, keyring: Keyring) -> str | None:
    if entry is None:
        return f"record {sequence} is missing"
    if isinstance(entry, str):
        return f"record {sequence} cannot be read: {entry}"
    if entry.sequence != sequence:
        return f"record {sequence} holds sequence number {entry.sequence}"
    if compute_hash(entry) != entry.hash:
        return f"record {sequence} does not match its hash"
    unsigned = signature_problem(entry, keyring)
    if unsigned:
        return f"record {sequence} {unsigned}"
    if entry.prev_hash != prev_hash:
        return f"record {sequence} does not link to record {sequence - 1}"
    return None


def _inserted_before(stored: Mapping[int, Stored], sequence: int) -> _Finding | None:
    # A forged record can be self-consistent and link to its predecessor; it shows only
    # in its successor, which still links to the record before the forgery.
    if sequence < 2:
        return None
    entry = stored.get(sequence)
    if not isinstance(entry, AuditRecord) or entry.prev_hash != _hash_at(stored, sequence - 2):
        return None
    if entry.hash == _hash_at(stored, sequence - 1):
        return None  # a repeat of the record before it: the repeat is the bad one
    forged = sequence - 1
    return _Finding(forged, f"record {forged} was inserted: record {sequence} skips over it")


def _hash_at(stored: Mapping[int, Stored], sequence: int) -> str:
    if sequence == 0:
        return GENESIS_HASH
    entry = stored[sequence]
    assert isinstance(entry, AuditRecord)
    return entry.hash


def _against_checkpoint(
    stored: Mapping[int, Stored], end: int, checkpoint: Checkpoint | None, *, walk_failed: bool
) -> _Finding | None:
    """A finding from the checkpoint, when it names an earlier record than the walk did."""
    if checkpoint is None or checkpoint.sequence == 0:
        return None
    if checkpoint.sequence > end:
        if walk_failed:
            return None
        return _Finding(
            end + 1,
            f"the chain ends at record {end} but the checkpoint names record {checkpoint.sequence}",
        )
    if _hash_at(stored, checkpoint.sequence) != checkpoint.hash:
        return _Finding(
            checkpoint.sequence,
            f"record {checkpoint.sequence} differs from the checkpoint: the chain was rewritten",
        )
    return None
