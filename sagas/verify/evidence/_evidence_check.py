"""Checking a compensation audit's evidence report offline, with public keys only: no database,
no Temporal and no payload key. Every audit record listed is hashed again from its signed
content, every journal entry from its postings, every signature checked, every figure
recomputed from the entries."""

from __future__ import annotations

from collections.abc import Iterator

from sagas.audit import Keyring
from sagas.engine import SagaStatus
from sagas.foundations import InvalidRequestError
from sagas.ledger import entry_message, proof_hash, seal_hash
from sagas.verify.evidence._evidence_figures import (
    entry_proof,
    moved_of,
    net_effect_of,
    reversals_of,
    totals_of,
)
from sagas.verify.evidence._evidence_model import EntryEvidence, EvidencePack, SagaEvidence
from sagas.verify.evidence._record_check import anchor_problems, record_problems


def compensation_problems(pack: EvidencePack, keyring: Keyring) -> Iterator[str]:
    """Every problem of a compensation audit's pack but its signature's, the first one first."""
    for saga in pack.sagas:
        yield from _saga_problems(saga, keyring)
    yield from _pack_problems(pack, keyring)


def _pack_problems(pack: EvidencePack, keyring: Keyring) -> Iterator[str]:
    if pack.verdict.ok == bool(pack.findings):
        yield "the verdict does not follow from the findings listed"
    try:
        if totals_of(pack.sagas) != pack.totals:
            yield "the totals are not the sums of the sagas listed: changed"
    except InvalidRequestError as err:
        yield f"the totals cannot be recomputed: {err}"
    chains = pack.chains
    records = {r.sequence: r.hash for saga in pack.sagas for r in saga.records}
    seals = {e.seal.sequence: e.seal.chain_hash for s in pack.sagas for e in s.entries if e.seal}
    for name, anchor, listed in (
        ("audit chain", chains.audit.latest_anchor, records),
        ("ledger journal", chains.journal.latest_anchor, seals),
    ):
        if anchor is not None:
            yield from anchor_problems(name, anchor, listed, keyring)


def _saga_problems(saga: SagaEvidence, keyring: Keyring) -> Iterator[str]:
    where = f"saga {saga.saga_id}"
    for record in saga.records:
        at = f"{where}: audit record {record.sequence}"
        yield from record_problems(at, record, keyring)
        if record.signed.get("saga_id") != saga.saga_id:
            yield f"{at}: is about another saga"
    for entry in saga.entries:
        yield from _entry_problems(f"{where}: entry {entry.entry_id}", saga.saga_id, entry, keyring)
    try:
        yield from _figure_problems(where, saga)
    except InvalidRequestError as err:
        yield f"{where}: {err}"


def _figure_problems(where: str, saga: SagaEvidence) -> Iterator[str]:
    if reversals_of(saga.entries) != saga.reversals:
        yield f"{where}: its reversal pairs are not those its entries name: changed"
    net = net_effect_of(saga.entries)
    if net != saga.net_effect:
        yield f"{where}: its net effect is not the sum of its entries' postings: changed"
    moved = moved_of(saga.holds, saga.entries)
    if (None if moved is None else str(moved)) != saga.moved:
        yield f"{where}: says it moved {saga.moved}, its holds and entries say {moved}: changed"
    undone = not net and all(hold.status != "active" for hold in saga.holds)
    if saga.status == SagaStatus.COMPENSATED and saga.verdict.ok and not undone:
        yield f"{where}: judged undone, but its entries or holds leave money moved"


def _entry_problems(at: str, saga_id: str, entry: EntryEvidence, keyring: Keyring) -> Iterator[str]:
    at = f"{at} ({entry.idempotency_key!r})"
    if entry.saga_id != saga_id:
        yield f"{at}: is an entry of saga {entry.saga_id}"
    try:
        digest = proof_hash(entry_proof(entry))
    except (InvalidRequestError, ValueError) as err:
        yield f"{at}: {err}"
        return
    if digest != entry.entry_hash:
        yield f"{at}: its content and postings do not hash to its entry_hash: changed"
    if entry.key_id is not None and entry.signature is not None:
        found = keyring.problem(entry.key_id, entry.signature, entry_message(entry.entry_hash))
        if found is not None:
            yield f"{at}: {found}"
    seal, link = entry.seal, entry.writer_link
    if seal is None:
        return
    if link is not None:
        sealed = (seal.sequence, seal.prev_hash, seal.chain_hash)
        if sealed != (link.sequence, link.prev_hash, entry.entry_hash):
            yield f"{at}: its seal differs from the place its writer chained it at: changed"
    elif seal.chain_hash != seal_hash(seal.sequence, seal.prev_hash, entry.entry_hash):
        yield f"{at}: its seal does not hash its place and entry: changed"
