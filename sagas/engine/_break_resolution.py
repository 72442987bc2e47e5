"""Resolving a reconciliation break by two operators: one proposes (with an adjusting entry
when the ledger must change), another approves, then the worker applies it. The adjusting
entry is witnessed as a funding is: by the signed records naming both operators.

An adjusting entry moves at most the break's difference; one beyond it needs, before the
approval, a third operator with the treasury role (`approve_excess`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from sagas.engine._operator_actions import FundingStatus, funding_entry_key, funding_id
from sagas.engine._operator_identity import MAX_PROOF_LENGTH, VerifiedOperator

BREAK_RESOLUTION_WORKFLOW = "BreakResolution"
APPROVE_RESOLUTION_UPDATE = "approve_resolution"
APPROVE_EXCESS_UPDATE = "approve_excess"
RESOLUTION_VIEW_QUERY = "resolution"
RESOLVE_BREAK_ACTIVITY = "reconcile.resolve_break"
ADJUSTMENT_BOUND_ACTIVITY = "reconcile.adjustment_bound"


class Adjustment(BaseModel):
    """An entry between a customer account and @funding: a positive amount credits the
    account (money the rail brought in), a negative one debits it (money the rail took)."""

    account_id: str = Field(min_length=1, max_length=64)
    amount: str = Field(min_length=1, max_length=40)
    """Signed decimal text in `currency`."""
    currency: str = Field(min_length=3, max_length=3)


class BreakResolutionRequest(BaseModel):
    break_id: int = Field(ge=1)
    note: str = Field(min_length=1, max_length=4000)
    adjustment: Adjustment | None = None
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)


class ResolutionApproval(BaseModel):
    note: str = Field(default="", max_length=4000)
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)


class BreakResolutionCall(BaseModel):
    """What the worker applies once a resolution is approved: idempotent by the break."""

    break_id: int
    resolved_by: str
    adjustment: Adjustment | None = None
    excess_approved_by: str | None = None
    """The treasury operator who approved an adjustment beyond the break's difference."""


class AdjustmentBound(BaseModel):
    """A proposed adjustment measured against its break's difference."""

    difference: str | None
    """The break's difference ('0.01 EUR'); None when no one amount measures it (a currency
    mismatch): then any adjustment is beyond it."""
    exceeds: bool
    """The adjustment moves more than the difference (or another currency)."""


class ResolutionView(BaseModel):
    resolution_id: str
    break_id: int
    note: str
    adjustment: Adjustment | None = None
    status: FundingStatus
    proposed_by: VerifiedOperator | None = None
    approved_by: VerifiedOperator | None = None
    entry_id: int | None = None
    break_difference: str | None = None
    """The break's difference as the worker read it when the resolution was proposed."""
    exceeds_difference: bool = False
    """The adjustment is beyond the break's difference: a treasury operator approves first."""
    excess_approved_by: VerifiedOperator | None = None
    approval_note: str = ""
    """The approver's own note, as they gave it with their approval."""
    excess_note: str = ""
    """The treasury operator's own note, as they gave it approving the excess."""


def resolution_id(break_id: int) -> str:
    """The workflow id of a break's resolution, and the funding id its adjustment is
    witnessed under."""
    return funding_id(resolution_key(break_id))


def resolution_key(break_id: int) -> str:
    return f"break-{break_id}"


def adjustment_entry_key(break_id: int) -> str:
    """The idempotency key of the adjusting entry a resolution posts."""
    return funding_entry_key(resolution_key(break_id))
