"""What an operator token is good for: one action on one workflow, and for an approval the one
proposal it approves.

The binding travels in the token as an RFC 9396 (Rich Authorization Requests) authorization
detail, a claim the identity provider signs, so the operator's client cannot change it and a
token copied out of one history authorises nothing else:

    "authorization_details": [{"type": "fundsaga_operator_action",
                               "workflow_id": "transfer-K1", "action": "approve",
                               "proposal": "p1"}]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

AUTHORIZATION_DETAILS_CLAIM = "authorization_details"
OPERATOR_ACTION_DETAIL = "fundsaga_operator_action"
"""The `type` of the authorization detail that binds a token to an operator action."""


class OperatorAct(StrEnum):
    """The acts on a saga, a recovery, a funding or a break resolution; an action outside them
    (on an account, a schedule, a statement) is bound to its audit kind (`account_frozen`)."""

    RETRY = "retry"  # run the parked compensation or step again
    PROPOSE = "propose"  # propose a resolution, a funding, a break resolution
    APPROVE = "approve"  # approve another operator's proposal
    PROPOSE_RECOVERY = "propose_recovery"  # propose the recovery of a killed saga
    APPROVE_RECOVERY = "approve_recovery"  # approve it
    APPROVE_EXCESS = "approve_excess"  # approve a break adjustment beyond its difference


class OperatorBinding(BaseModel):
    """The one action a token authorises."""

    model_config = ConfigDict(frozen=True)

    workflow_id: str = Field(min_length=1, max_length=1000)
    """The workflow the action is sent to (the saga, `recovery:<saga>`, `funding-<key>`)."""
    action: str = Field(min_length=1, max_length=64)
    """An OperatorAct, or the audit kind of an action outside a proposal."""
    proposal: str = Field(default="", max_length=128)
    """For an approval: the proposal's id (p1, r1), or the digest of a funding's or break
    resolution's proposal (`proposal_digest`); empty for any other action."""

    def authorization_detail(self) -> dict[str, str]:
        """The authorization detail a token for this action carries (RFC 9396)."""
        detail = {
            "type": OPERATOR_ACTION_DETAIL,
            "workflow_id": self.workflow_id,
            "action": self.action,
        }
        return detail | ({"proposal": self.proposal} if self.proposal else {})

    def describe(self) -> str:
        proposal = f" of proposal {self.proposal}" if self.proposal else ""
        return f"{self.action}{proposal} on {self.workflow_id}"

    def refusal(self, claims: Mapping[str, Any]) -> str | None:
        """Why a token with `claims` does not authorise this action; None when it does."""
        details = claims.get(AUTHORIZATION_DETAILS_CLAIM)
        ours = [
            d
            for d in (details if isinstance(details, list) else [])
            if isinstance(d, dict) and d.get("type") == OPERATOR_ACTION_DETAIL
        ]
        if len(ours) != 1:
            return (
                f"the token must be bound to exactly one action ({len(ours)} "
                f"{AUTHORIZATION_DETAILS_CLAIM} of type {OPERATOR_ACTION_DETAIL!r}); this one "
                f"needs {json.dumps(self.authorization_detail())}"
            )
        try:
            bound = OperatorBinding.model_validate(
                {k: ours[0].get(k, "") for k in ("workflow_id", "action", "proposal")}
            )
        except ValueError:
            return "the token's authorization detail is malformed"
        if bound != self:
            return f"the token is bound to {bound.describe()}, not to {self.describe()}"
        return None


def proposal_digest(workflow_id: str, proposer_token_sha256: str, facts: JsonValue) -> str:
    """The digest an approval of a proposal without an id (a funding, a break resolution)
    names: over the workflow, what is proposed and the proposer's (used once) token."""
    canonical = json.dumps(
        [workflow_id, proposer_token_sha256, facts], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
