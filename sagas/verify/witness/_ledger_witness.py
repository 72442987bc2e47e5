"""What a journal is proven against: Temporal's histories and the audit trail, read in an
order that leaves a live ledger no room for false findings.

The journal is read first, then Temporal: every entry read was written before its saga's
history was, so a finished step's receipt is there. `verify_ledger` reads the journal again
to compare it with what Temporal saw, so an entry written meanwhile is not taken for deleted.
Which entries Temporal may have forgotten, and which records may stand in for it, the anchor
store says (`AnchoredReach`), never a time the ledger's or the audit trail's writer stamped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from temporalio.client import Client

from sagas.audit import AnchorStore, AuditRecord, AuditStore
from sagas.codec import PayloadDecryptionError, PayloadKeys, RecordSealer
from sagas.engine import funding_of_entry
from sagas.ledger import EntryView, Ledger
from sagas.verify.witness._anchored_reach import NOTHING_ANCHORED, AnchoredReach, anchored_reach
from sagas.verify.witness._temporal_histories import TemporalWitness, looked_up, temporal_witness


@dataclass(frozen=True)
class LedgerWitness:
    """What the journal's entries are proven against."""

    entries: Sequence[EntryView]
    """The journal as it stood before Temporal was read."""
    temporal: TemporalWitness
    records: Sequence[AuditRecord]
    """The audit trail's records that its verification accepts."""
    reach: AnchoredReach = NOTHING_ANCHORED
    """The entries and records anchored before the namespace's retention ended."""


async def read_ledger_witness(
    temporal: Client,
    task_queue: str,
    store: AuditStore,
    ledger: Ledger,
    payload_keys: PayloadKeys | None = None,
    *,
    anchors: AnchorStore | None = None,
) -> LedgerWitness:
    """The journal, then every history of the task queue (and, by id, those of young entries'
    sagas that Temporal's list does not show yet), then the verified audit records, opened
    with `payload_keys` where the deployment sealed them, and how far `anchors` taken before
    the retention ended reach (without them, no entry is past retention)."""
    entries = ledger.entries()
    witness = await temporal_witness(temporal, task_queue)
    records = verified_records(store)
    reach = (
        NOTHING_ANCHORED
        if anchors is None
        else anchored_reach(
            anchors,
            witness.retention_ended,
            journal_hash_at=ledger.entry_hash_at,
            records=records,
        )
    )
    young = {
        history
        for entry in entries
        if not reach.may_be_forgotten(entry)
        and (history := entry.saga_id or funding_of_entry(entry.idempotency_key)) is not None
        and not witness.knows(history)
    }
    witness = await looked_up(witness, temporal, task_queue, young)
    return LedgerWitness(entries, witness, opened_records(records, payload_keys), reach)


def verified_records(store: AuditStore) -> list[AuditRecord]:
    """The records before the first one the chain's verification rejects: only signed, chained
    records witness an entry."""
    chain = store.verify()
    records = store.records()
    if chain.first_bad_sequence is None:
        return records
    return [record for record in records if record.sequence < chain.first_bad_sequence]


def opened_records(records: Sequence[AuditRecord], keys: PayloadKeys | None) -> list[AuditRecord]:
    """The records with their sealed payloads opened where `keys` can; a record that does not
    open stays sealed (a funding's witness then says it cannot be read)."""
    if keys is None:
        return list(records)
    sealer = RecordSealer(keys)
    opened: list[AuditRecord] = []
    for record in records:
        try:
            payload = sealer.open(dict(record.payload))
        except PayloadDecryptionError:
            payload = dict(record.payload)
        opened.append(record.model_copy(update={"payload": payload}))
    return opened
