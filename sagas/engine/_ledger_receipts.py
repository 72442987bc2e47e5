"""Ledger receipts: an activity's completion names the journal entries it wrote or replayed.

The worker's `LedgerReceipts` interceptor collects, for each activity, the entries the ledger
returned to it (idempotency key and entry hash) and puts them in the metadata of the activity's
result payload. The workflow's decoding reads the payload's data only, so histories recorded
before receipts replay unchanged and no workflow code changes; the metadata stays in clear
when the payload is encrypted, so an auditor reads receipts with no payload key. An activity
that wrote entries and then failed carries its receipt as one more detail of its failure, a
public payload (the engine reads only the first detail). Temporal's history then witnesses the
ledger out of reach of whoever owns the ledger's database.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from temporalio import activity
from temporalio.api.common.v1 import Payload
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from sagas.engine._audit_call import PUBLIC_METADATA

LEDGER_RECEIPT_METADATA = "fundsaga-ledger-receipt"
"""The metadata key of a payload that carries a ledger receipt (JSON, never sealed)."""


class EntryReceipt(BaseModel, frozen=True):
    """One journal entry as the activity that wrote or replayed it saw it."""

    key: str
    """The entry's idempotency key."""
    entry_hash: str
    saga_id: str | None
    """The saga the entry is for; None for an entry outside a saga (funding)."""


_RECEIPTS = TypeAdapter(list[EntryReceipt])
_collected: ContextVar[list[EntryReceipt] | None] = ContextVar(
    "fundsaga_ledger_receipts", default=None
)


class UnreadableReceiptError(ValueError):
    """A payload's ledger receipt is not the JSON list of entries this module writes."""


def note_entry(receipt: EntryReceipt) -> None:
    """Add the entry to the receipt of the activity running now; nothing outside one."""
    collected = _collected.get()
    if collected is not None and receipt not in collected:
        collected.append(receipt)


def with_receipt(payload: Payload, receipts: Sequence[EntryReceipt]) -> Payload:
    """A copy of `payload` whose metadata carries `receipts`."""
    marked = Payload()
    marked.CopyFrom(payload)
    marked.metadata[LEDGER_RECEIPT_METADATA] = _RECEIPTS.dump_json(list(receipts))
    return marked


def receipt_of(payload: Payload) -> list[EntryReceipt]:
    """The entries a result payload's receipt names; empty when it carries none."""
    raw = payload.metadata.get(LEDGER_RECEIPT_METADATA)
    if raw is None:
        return []
    try:
        return _RECEIPTS.validate_json(raw)
    except ValidationError as err:
        raise UnreadableReceiptError(str(err)) from None


class LedgerReceipts(Interceptor):
    """The worker interceptor that puts each activity's ledger receipt on its result."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ReceiptedActivity(next)


class _ReceiptedActivity(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        # A sync activity's thread runs in a copy of this context: it shares the list.
        collected: list[EntryReceipt] = []
        token = _collected.set(collected)
        try:
            result = await self.next.execute_activity(input)
        except ApplicationError as err:
            if not collected:
                raise
            raise _with_receipt_detail(err, collected) from err.__cause__
        finally:
            _collected.reset(token)
        if not collected:
            return result
        payload = (
            result.payload
            if isinstance(result, RawValue)
            else activity.payload_converter().to_payload(result)
        )
        return RawValue(with_receipt(payload, collected))


def _with_receipt_detail(err: ApplicationError, receipts: list[EntryReceipt]) -> ApplicationError:
    """The same failure, with the receipt as a public payload after its details."""
    metadata = {"encoding": b"json/plain", PUBLIC_METADATA: b"ledger-receipt"}
    detail = with_receipt(Payload(metadata=metadata, data=b"null"), receipts)
    return ApplicationError(
        err.message,
        *err.details,
        RawValue(detail),
        type=err.type,
        non_retryable=err.non_retryable,
        next_retry_delay=err.next_retry_delay,
        category=err.category,
    )
