"""What the engine asks the audit activity to write, and how that write is retried."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, JsonValue
from temporalio.api.common.v1 import Payload
from temporalio.common import RawValue, RetryPolicy

AUDIT_ACTIVITY = "audit.record"
ANCHOR_ACTIVITY = "audit.anchor"
"""Anchors the audit chain at its head; run by the one anchor schedule of a deployment."""

AUDIT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=0,
)
"""Unlimited attempts: an audit store that is down delays the saga, it never loses the record."""

AUDIT_TIMEOUT = timedelta(seconds=30)


class AuditKind(StrEnum):
    """What an audit record records."""

    TERMINAL = "terminal"  # the saga closed other than COMPLETED
    COMPLETED = "completed"  # the saga completed (recorded only when configured)
    NEEDS_ATTENTION = "needs_attention"  # the saga parked, on a compensation or a step
    OPERATOR_RETRY = "operator_retry"  # an operator asked to retry what the saga is parked on
    RESOLUTION_PROPOSED = "resolution_proposed"  # an operator proposed to resolve by hand
    RESOLUTION_APPROVED = "resolution_approved"  # another operator approved it: resolved
    BATCH_COMPLETED = "batch_completed"  # a batch ended: every item's outcome
    SCHEDULE_CREATED = "schedule_created"  # an operator created a schedule of sagas
    SCHEDULE_PAUSED = "schedule_paused"  # an operator paused it, with a note
    SCHEDULE_RESUMED = "schedule_resumed"  # an operator resumed it, with a note
    SCHEDULE_TRIGGERED = "schedule_triggered"  # an operator ran it now, or for one of its times
    SCHEDULE_BACKFILLED = "schedule_backfilled"  # an operator ran its times over a past range
    SCHEDULE_DELETED = "schedule_deleted"  # an operator deleted it
    ACCOUNT_FROZEN = "account_frozen"  # an operator froze an account: no new movements
    ACCOUNT_UNFROZEN = "account_unfrozen"  # an operator made it active again
    ACCOUNT_CLOSED = "account_closed"  # an operator closed it for good
    ACCOUNT_LIMIT_SET = "account_limit_set"  # an operator opened an account with an overdraft
    FUNDING_PROPOSED = "funding_proposed"  # an operator proposed to create money in an account
    FUNDING_APPROVED = "funding_approved"  # another operator approved it: the entry is posted
    FUNDING_EXPIRED = "funding_expired"  # nobody approved it in time: no money was created
    SAGA_KILLED = "saga_killed"  # its execution was closed from outside: the effects found
    RECOVERY_PROPOSED = "recovery_proposed"  # an operator proposed to recover the killed saga
    RECOVERY_APPROVED = "recovery_approved"  # another operator approved it: the recovery runs
    SAGA_RECOVERED = "saga_recovered"  # the recovery closed the killed saga: how it ended
    STATEMENT_IMPORTED = "statement_imported"  # an operator imported a statement: what it matched
    RECONCILIATION_RUN = "reconciliation_run"  # an operator matched again: breaks opened, closed
    BREAK_EXPLAINED = "break_explained"  # an operator explained a break, with evidence
    BREAK_RESOLUTION_PROPOSED = "break_resolution_proposed"  # an operator proposed to close a break
    BREAK_EXCESS_APPROVED = "break_excess_approved"  # treasury: an adjustment beyond the break
    BREAK_RESOLVED = "break_resolved"  # another operator approved: the break is closed
    BREAK_RESOLUTION_EXPIRED = "break_resolution_expired"  # nobody approved it in time


class AuditReceipt(BaseModel):
    """What the audit activity returns: the record's place in the chain, kept in the saga's
    Temporal history as an independent witness of what the store held."""

    sequence: int
    hash: str


PUBLIC_METADATA = "fundsaga-public"
"""Marks a payload that holds no secret: an encrypting codec authenticates it and leaves it
readable, so that an auditor without payload keys reads the receipts Temporal witnesses."""


def public_receipt(receipt: AuditReceipt) -> RawValue:
    """The receipt as the audit activity returns it: JSON, marked public."""
    metadata = {"encoding": b"json/plain", PUBLIC_METADATA: b"audit-receipt"}
    return RawValue(Payload(metadata=metadata, data=receipt.model_dump_json().encode()))


class AuditCall(BaseModel):
    """One audit record to append; `dedupe_key` makes a retried write a no-op."""

    kind: AuditKind
    saga_id: str
    saga_type: str
    dedupe_key: str
    payload: dict[str, JsonValue]
