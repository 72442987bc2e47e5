"""Operator actions outside a saga (on accounts, on schedules) and funding, which needs two.

An action outside a saga runs as a short workflow: it verifies the operator's proof first, the
client acts only once it is verified, and the workflow then writes the audit record with the
verified operator. Funding creates money, so one operator proposes it and another approves it;
the worker posts the entry only then.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, Field

from sagas.engine._audit_call import AuditKind
from sagas.engine._operator_identity import MAX_PROOF_LENGTH, VerifiedOperator
from sagas.foundations import InvalidRequestError, parse_money

OPERATOR_ACTION_WORKFLOW = "OperatorAction"
FUNDING_WORKFLOW = "Funding"
OPERATOR_VERIFIED_UPDATE = "operator_verified"
"""Returns the verified operator's name once the proof is checked; refused otherwise."""
ACTION_TAKEN_SIGNAL = "action_taken"
ACTION_ABANDONED_SIGNAL = "action_abandoned"
APPROVE_FUNDING_UPDATE = "approve_funding"
FUNDING_VIEW_QUERY = "funding_view"
FUNDING_ACTIVITY = "ledger.fund"
ACCOUNT_STATUS_ACTIVITY = "ledger.account_status"
ACCOUNT_LIMIT_ACTIVITY = "ledger.account_limit"
ACTION_WAIT = timedelta(minutes=10)
"""How long a verified action waits for the client to report it taken; no record after."""
FUNDING_WAIT = timedelta(days=1)
"""How long a funding proposal waits for its approval before it expires."""


_ACCOUNT_STATUS_OF = {
    AuditKind.ACCOUNT_FROZEN: "frozen",
    AuditKind.ACCOUNT_UNFROZEN: "active",
    AuditKind.ACCOUNT_CLOSED: "closed",
}
_SCHEDULE_KINDS = frozenset(
    {
        AuditKind.SCHEDULE_CREATED,
        AuditKind.SCHEDULE_PAUSED,
        AuditKind.SCHEDULE_RESUMED,
        AuditKind.SCHEDULE_TRIGGERED,
        AuditKind.SCHEDULE_BACKFILLED,
        AuditKind.SCHEDULE_DELETED,
    }
)


class AccountStatusCall(BaseModel):
    """What the worker applies once an account action is verified."""

    account_id: str = Field(min_length=1, max_length=64)
    status: str = Field(pattern="^(active|frozen|closed)$")


class AccountLimitCall(BaseModel):
    """What the worker applies once an overdraft limit is verified: the account opened with it
    (the ledger fixes an account's limit when it opens)."""

    account_id: str = Field(min_length=1, max_length=64)
    currency: str = Field(min_length=3, max_length=3)
    overdraft: str = Field(min_length=1, max_length=40)
    """Decimal text in the account's currency, above zero."""


def account_status_call(kind: AuditKind, account_id: str) -> AccountStatusCall:
    """What the worker applies for the account action `kind` (ACCOUNT_FROZEN, ...)."""
    return AccountStatusCall(account_id=account_id, status=_ACCOUNT_STATUS_OF[kind])


class OperatorActionRequest(BaseModel):
    """An action outside a saga, to verify and then record."""

    kind: AuditKind
    subject_type: str = Field(min_length=1, max_length=32)
    """What the action is on: "account", "schedule"; the audit record's saga_type."""
    subject_id: str = Field(min_length=1, max_length=200)
    note: str = Field(default="", max_length=4000)
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)
    account_status: AccountStatusCall | None = None
    """An account action: the worker sets this status once the operator is verified. None:
    the client acts, then reports the action taken (schedules)."""
    account_limit: AccountLimitCall | None = None
    """ACCOUNT_LIMIT_SET: the worker opens the account with this overdraft once the operator
    is verified."""

    def refusal(self) -> str | None:
        """Why this request is no operator action that this workflow records: its kind must be
        an account action carrying that status or limit, or a schedule action."""
        if (self.kind == AuditKind.ACCOUNT_LIMIT_SET) != (self.account_limit is not None):
            return "account_limit: given with kind account_limit_set, and only with it"
        if self.account_limit is not None:
            if self.subject_type != "account" or self.account_limit.account_id != self.subject_id:
                return "subject_id: not the account whose limit is set"
            limit = self.account_limit
            return _money_refusal(limit.overdraft, limit.currency, "overdraft") or (
                None if self.account_status is None else "account_status: not with a limit"
            )
        wanted = _ACCOUNT_STATUS_OF.get(self.kind)
        if wanted is not None:
            status = self.account_status.status if self.account_status else None
            if self.subject_type != "account" or status != wanted:
                return f"kind: {self.kind} is an account action that sets the status {wanted}"
            if self.account_status and self.account_status.account_id != self.subject_id:
                return "subject_id: not the account whose status is set"
            return None
        if self.kind in _SCHEDULE_KINDS and self.subject_type == "schedule":
            return None if self.account_status is None else "account_status: not on a schedule"
        return f"kind: {self.kind} is not an operator action on an account or a schedule"


class FundingStatus(StrEnum):
    """Where a funding proposal stands."""

    AWAITING_APPROVAL = "AWAITING_APPROVAL"  # proposed; another operator approves it
    FUNDED = "FUNDED"  # approved and posted
    EXPIRED = "EXPIRED"  # nobody approved it in time: no money was created
    REFUSED = "REFUSED"  # the proposer's proof was refused: nothing was proposed


class FundingRequest(BaseModel):
    """A proposal to bring money into a customer account from @funding."""

    funding_key: str = Field(min_length=1, max_length=120)
    account_id: str = Field(min_length=1, max_length=64)
    amount: str = Field(min_length=1, max_length=40)
    """Decimal text in the account's currency."""
    currency: str = Field(min_length=3, max_length=3)
    note: str = Field(default="", max_length=4000)
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)

    def refusal(self) -> str | None:
        """Why this proposal is refused before anything is recorded: an amount that is not
        money in `currency` would otherwise be found only when the approved entry is posted."""
        return _money_refusal(self.amount, self.currency, "amount")


def _money_refusal(amount: str, currency: str, field: str) -> str | None:
    """Why `amount` is not money in `currency`, naming the field; None when it is."""
    try:
        parse_money(amount, currency, field=field)
    except InvalidRequestError as err:
        return str(err)
    return None


class FundingApproval(BaseModel):
    note: str = Field(default="", max_length=4000)
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)


class FundingCall(BaseModel):
    """What the worker posts once a funding is approved: idempotent by `funding_key`."""

    funding_key: str
    account_id: str
    amount: str
    currency: str


class FundingView(BaseModel):
    funding_id: str
    account_id: str
    amount: str
    currency: str
    status: FundingStatus
    proposed_by: VerifiedOperator | None = None
    approved_by: VerifiedOperator | None = None
    entry_id: str | None = None


FUNDING_ENTRY_PREFIX = "funding:"


def funding_id(funding_key: str) -> str:
    return f"funding-{funding_key}"


def funding_entry_key(funding_key: str) -> str:
    """The idempotency key of the journal entry an approved funding posts."""
    return f"{FUNDING_ENTRY_PREFIX}{funding_key}"


def funding_of_entry(entry_key: str) -> str | None:
    """The funding (its workflow id) whose entry has this key; None for any other entry."""
    if not entry_key.startswith(FUNDING_ENTRY_PREFIX):
        return None
    return funding_id(entry_key.removeprefix(FUNDING_ENTRY_PREFIX))
