"""The audit activities: append one record to the WORM audit store, idempotently; anchor the
audit chain and the ledger's journal chain in the anchor store."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import JsonValue
from temporalio import activity
from temporalio.common import RawValue

from sagas.audit import AnchorStore, AuditStore, Checkpoint
from sagas.engine import (
    ANCHOR_ACTIVITY,
    AUDIT_ACTIVITY,
    AuditCall,
    AuditReceipt,
    measured_anchor_write,
    measured_audit_write,
    public_receipt,
    to_application_error,
)
from sagas.foundations import FundsagaError
from sagas.ledger import JOURNAL_CHAIN, Ledger


def anchor_journal(ledger: Ledger, anchors: AnchorStore) -> Checkpoint | None:
    """Seal the entries written since the last run, and anchor the journal chain at its head;
    None while the journal is empty."""
    head = ledger.seal()
    if head.sequence == 0:
        return None
    return anchors.anchor_chain(JOURNAL_CHAIN, head.sequence, head.entry_hash)


Sealer = Callable[[dict[str, JsonValue]], dict[str, JsonValue]]
"""Seals a record's payload before it is stored (the deployment's payload keys)."""


class AuditActivities:
    def __init__(
        self,
        store: AuditStore,
        anchors: AnchorStore | None = None,
        ledger: Ledger | None = None,
        sealer: Sealer | None = None,
    ) -> None:
        self.store = store
        self.anchors = anchors
        self.ledger = ledger
        self.sealer = sealer

    @activity.defn(name=AUDIT_ACTIVITY)
    def record(self, call: AuditCall) -> RawValue:
        """Append the record (a retry with the same dedupe key returns the first), its payload
        sealed when the deployment encrypts; its place, as a public receipt."""
        payload = call.payload if self.sealer is None else self.sealer(call.payload)
        try:
            with measured_audit_write(call.kind.value):
                written = self.store.append(
                    kind=call.kind,
                    saga_id=call.saga_id,
                    dedupe_key=call.dedupe_key,
                    payload=payload,
                )
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return public_receipt(AuditReceipt(sequence=written.sequence, hash=written.hash))

    @activity.defn(name=ANCHOR_ACTIVITY)
    def anchor(self) -> int | None:
        """Anchor the audit chain, and the ledger's journal when there is a ledger, at their
        heads; the audit chain's anchored sequence (None: empty chain or no anchor store)."""
        if self.anchors is None:
            return None
        try:
            with measured_anchor_write():
                if self.ledger is not None:
                    anchor_journal(self.ledger, self.anchors)
                head = self.store.head()
                return None if head is None else self.anchors.anchor(head).sequence
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
