"""The activity that tells a saga who an operator action is by: it checks the action's access
token against the identity provider the worker trusts, then spends the token (its `jti`,
recorded once deployment-wide) as the action is taken."""

from __future__ import annotations

from collections.abc import Callable

from temporalio import activity

from sagas.engine import (
    OPERATOR_IDENTITY_ACTIVITY,
    OperatorTokenCheck,
    ProofCheck,
    VerifiedOperator,
    refused_on_worker,
    verify_on_worker,
)
from sagas.ledger import TokenSpend

SpendToken = Callable[[TokenSpend], TokenSpend | None]
"""Records a token's use; returns the earlier use that already took it, if any
(`spend_operator_token` on the ledger's database)."""


class OperatorIdentityActivity:
    """Verifies operator proofs with `check` and spends them with `spend`; with no check, the
    worker refuses every operator action."""

    def __init__(self, check: OperatorTokenCheck | None, spend: SpendToken) -> None:
        self.check = check
        self.spend = spend

    @activity.defn(name=OPERATOR_IDENTITY_ACTIVITY)
    def verify(self, request: ProofCheck) -> VerifiedOperator:
        operator = verify_on_worker(self.check, request)
        info = activity.info()
        spend = TokenSpend(
            issuer=operator.issuer,
            token_id=operator.token_id,
            subject=operator.subject,
            workflow_id=request.binding.workflow_id,
            action=request.binding.action,
            used_by=f"{info.workflow_run_id}/{info.activity_id}",
        )
        earlier = self.spend(spend)
        if earlier is not None:
            raise refused_on_worker(
                request.role,
                f"access token refused: it was already used ({earlier.action} on "
                f"{earlier.workflow_id}); a token is good for one action",
            )
        return operator
