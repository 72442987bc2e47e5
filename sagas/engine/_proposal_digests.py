"""What an approval of a funding or a break resolution names: the digest of the proposal, so a
token minted to approve one proposal approves no other (another amount, a later proposal under
the same workflow id)."""

from __future__ import annotations

from sagas.engine._break_resolution import ResolutionView
from sagas.engine._operator_actions import FundingView
from sagas.engine._operator_binding import proposal_digest


def funding_proposal(view: FundingView) -> str:
    """The digest of the funding's proposal; empty while nobody proposed it."""
    if view.proposed_by is None:
        return ""
    facts = view.model_dump(mode="json", include={"account_id", "amount", "currency"})
    return proposal_digest(view.funding_id, view.proposed_by.token_sha256, facts)


def resolution_proposal(view: ResolutionView) -> str:
    """The digest of the break resolution's proposal; empty while nobody proposed it."""
    if view.proposed_by is None:
        return ""
    facts = view.model_dump(mode="json", include={"break_id", "note", "adjustment"})
    return proposal_digest(view.resolution_id, view.proposed_by.token_sha256, facts)
