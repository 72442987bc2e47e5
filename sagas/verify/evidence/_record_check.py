"""Checking signed audit records and chain anchors a report carries, with public keys only:
each record hashed again from its signed content and its signature checked."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from sagas.audit import Keyring
from sagas.foundations import canonical_json, sha256_hex
from sagas.verify.evidence._evidence_scope import Anchor, SignedRecord


def record_problems(at: str, record: SignedRecord, keyring: Keyring) -> Iterator[str]:
    signed = record.signed
    if sha256_hex(canonical_json(signed)) != record.hash:
        yield f"{at}: its signed content does not hash to its hash: changed"
    named = (signed.get("sequence"), signed.get("kind"), signed.get("key_id"))
    if named != (record.sequence, record.kind, record.key_id):
        yield f"{at}: its sequence, kind or key id differ from its signed content: changed"
    found = keyring.problem(record.key_id, record.signature, record.hash.encode())
    if found is not None:
        yield f"{at}: {found}"


def anchor_problems(
    name: str, anchor: Anchor, listed: Mapping[int, str], keyring: Keyring
) -> Iterator[str]:
    """`listed`: the hash of each place of the chain the report lists, by sequence."""
    at = f"the {name}'s latest anchor"
    yield from record_problems(at, anchor.record, keyring)
    payload = anchor.record.signed.get("payload")
    if payload != {"sequence": anchor.sequence, "hash": anchor.hash}:
        yield f"{at}: names another place than its signed record: changed"
    if anchor.sequence in listed and listed[anchor.sequence] != anchor.hash:
        yield f"{at}: names #{anchor.sequence} with another hash than the report lists"
