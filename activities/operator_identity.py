"""The activity that tells a saga who an operator action is by: it checks the action's access
token against the identity provider the worker trusts."""

from __future__ import annotations

from temporalio import activity

from sagas.engine import (
    OPERATOR_IDENTITY_ACTIVITY,
    OperatorTokenCheck,
    ProofCheck,
    VerifiedOperator,
    verify_on_worker,
)


class OperatorIdentityActivity:
    """Verifies operator proofs with `check`; with None, the worker refuses every operator
    action."""

    def __init__(self, check: OperatorTokenCheck | None) -> None:
        self.check = check

    @activity.defn(name=OPERATOR_IDENTITY_ACTIVITY)
    def verify(self, request: ProofCheck) -> VerifiedOperator:
        return verify_on_worker(self.check, request)
