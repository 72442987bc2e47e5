"""Maker-checker for resolutions: one operator proposes, a different one approves.

Only the newest proposal of the current parking can be approved: a retry, a new parking or a
newer proposal in between makes it stale.
"""

from __future__ import annotations

from pydantic import BaseModel

from sagas.engine._operator_identity import VerifiedOperator
from sagas.engine._outcome import OperatorAction
from sagas.foundations import (
    ProposalStaleError,
    ResolutionRefusedError,
    SameOperatorError,
    names_look_alike,
)


class ParkedAt(BaseModel):
    """Where a parked saga stands: what a proposal was made against."""

    parking: int
    """How many times the saga has parked, this parking included."""
    parked_on: str | None
    """The step (parked on a step) or the compensation's step the saga waits on."""
    stack: list[str]
    """The compensation stack, by step name, next first."""


class ResolutionProposal(BaseModel):
    """An operator's proposal to resolve the parked saga by hand."""

    proposal_id: str
    operator: str
    note: str
    at: ParkedAt
    identity: VerifiedOperator | None = None
    """The proposer as verified (None in histories from before operator proofs)."""

    def same_operator(self, approval: OperatorAction) -> bool:
        if self.identity is not None and approval.identity is not None:
            return self.identity.same_principal(approval.identity)
        return names_look_alike(self.operator, approval.operator)


class Proposals:
    """The proposals of one saga run."""

    def __init__(self) -> None:
        self.made = 0
        self.open: ResolutionProposal | None = None

    def draft(self, action: OperatorAction, at: ParkedAt) -> ResolutionProposal:
        self.made += 1
        return ResolutionProposal(
            proposal_id=f"p{self.made}",
            operator=action.operator,
            note=action.note,
            at=at,
            identity=action.identity,
        )

    def recorded(self, proposal: ResolutionProposal) -> None:
        """The proposal's audit record is written: approvable, unless a newer one was drafted."""
        if proposal.proposal_id == f"p{self.made}":
            self.open = proposal

    def refusal(
        self, approval: OperatorAction, now: ParkedAt, *, by_operator: bool = True
    ) -> ResolutionRefusedError | None:
        """Why `approval` cannot resolve the saga as it stands `now`; None if it can."""
        proposal = self.open
        if proposal is None or approval.proposal_id != proposal.proposal_id:
            return ProposalStaleError(
                f"proposal {approval.proposal_id!r} is not the saga's open proposal"
                f" ({proposal.proposal_id if proposal else 'none is open'})"
            )
        if proposal.at != now:
            return ProposalStaleError(
                f"the saga changed since proposal {proposal.proposal_id}: propose again"
            )
        if by_operator and proposal.same_operator(approval):
            return SameOperatorError(
                f"{approval.operator} proposed {proposal.proposal_id}: another operator approves"
            )
        return None
