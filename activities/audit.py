"""The audit activity: append one record to the WORM audit store, idempotently."""

from __future__ import annotations

from temporalio import activity

from sagas import FundsagaError
from sagas.audit import AuditStore
from sagas.engine import AUDIT_ACTIVITY, AuditCall, AuditReceipt, to_application_error


class AuditActivities:
    def __init__(self, store: AuditStore) -> None:
        self.store = store

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
