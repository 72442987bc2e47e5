"""The ledger's part of ledger receipts (sagas.engine's `LedgerReceipts`): each entry a call
returns, written now or found under its key, is noted for the receipt of the activity making
the call. Outside an activity nothing is noted."""

from __future__ import annotations

from sagas.engine import EntryReceipt, note_entry
from sagas.ledger._views import EntryView


def note_returned(result: object) -> None:
    """Note `result` when it is an entry (a call's committed result)."""
    if isinstance(result, EntryView):
        note_entry(
            EntryReceipt(
                key=result.idempotency_key, entry_hash=result.entry_hash, saga_id=result.saga_id
            )
        )
