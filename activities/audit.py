"""The audit activity: append one record to the WORM audit store, idempotently."""

from __future__ import annotations

from temporalio import activity

from sagas import FundsagaError
from sagas.audit import AnchorStore, AuditStore
from sagas.engine import (
    ANCHOR_ACTIVITY,
    AUDIT_ACTIVITY,
    AuditCall,
    AuditReceipt,
    to_application_error,
)


class AuditActivities:
    def __init__(self, store: AuditStore, anchors: AnchorStore | None = None) -> None:
        self.store = store
        self.anchors = anchors

    @activity.defn(name=AUDIT_ACTIVITY)
    def record(self, call: AuditCall) -> AuditReceipt:
        """Append the record (a retry with the same dedupe key returns the first); its place."""
        try:
            written = self.store.append(
                kind=call.kind,
                saga_id=call.saga_id,
                dedupe_key=call.dedupe_key,
                payload=call.payload,
            )
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return AuditReceipt(sequence=written.sequence, hash=written.hash)

    @activity.defn(name=ANCHOR_ACTIVITY)
    def anchor(self) -> int | None:
        """Anchor the chain at its head; the anchored sequence (None: empty chain, no anchors)."""
        head = self.store.head()
        if head is None or self.anchors is None:
            return None
        try:
            return self.anchors.anchor(head).sequence
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
