"""Operator tokens checked in an update's validator, so a refused action leaves no event.

Temporal runs a validator when an update is first delivered, never on replay, and before the
update is written to the history; it must do no I/O. So the worker holds its identity
provider's keys in memory (`HeldJwks`) and registers its check here per task queue when it is
built; this module is passed through the workflow sandbox (`saga_workflow_runner`), so the
validator reaches the worker's own registry. A sandbox that did not pass it through would see
an empty registry and refuse every action: it fails closed.

A token is spent when its action is taken: the handler marks it spent in the workflow (so the
same token sent again is refused by the validator, leaving no event) and the identity activity
records its `jti` deployment-wide (so no other workflow takes it either).
"""

from __future__ import annotations

import hashlib

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from sagas.engine._metrics import operator_action_refused
from sagas.engine._operator_binding import OperatorBinding
from sagas.engine._operator_identity import (
    OperatorRole,
    OperatorTokenCheck,
    ProofCheck,
    VerifiedOperator,
    operator_refused,
)
from sagas.foundations import JwksUnavailableError, OperatorRefusedError

_TRUSTED: dict[str, OperatorTokenCheck | None] = {}
"""The identity provider each task queue's worker in this process trusts."""

NO_PROOF = (
    "an operator action needs a proof of identity: an access token from the identity "
    "provider the worker trusts (FUNDSAGA_OPERATOR_TOKEN)"
)


def trust_operators(task_queue: str, check: OperatorTokenCheck | None) -> None:
    """The worker of `task_queue` checks operator tokens with `check` (None: refuses all)."""
    _TRUSTED[task_queue] = check


def validated_operator(
    proof: str, role: OperatorRole, binding: OperatorBinding, spent: set[str]
) -> VerifiedOperator:
    """In a validator: the operator `proof` proves, with `role`, bound to `binding`, not among
    the tokens this workflow `spent`; the refusal (an ApplicationError) otherwise."""
    if not proof:
        raise operator_refused(NO_PROOF)
    if token_digest(proof) in spent:
        raise _refused(role, "access token refused: it was already used for an action")
    check = _TRUSTED.get(workflow.info().task_queue)
    if check is None:
        raise _refused(
            role,
            "this worker trusts no identity provider (FUNDSAGA_OPERATOR_JWKS): "
            "operator actions are refused",
        )
    request = ProofCheck(proof=proof, role=role, binding=binding, checked_at=workflow.now())
    try:
        # The signature check imports parts of `cryptography` on first use: from the worker's
        # own modules, not as fresh copies inside the sandbox.
        with workflow.unsafe.imports_passed_through():
            return check.verify(request)
    except (OperatorRefusedError, JwksUnavailableError) as err:
        raise _refused(role, str(err)) from err


def token_digest(proof: str) -> str:
    """How a workflow remembers a token it spent: its SHA-256, never the token."""
    return hashlib.sha256(proof.encode()).hexdigest()


def _refused(role: OperatorRole, message: str) -> ApplicationError:
    operator_action_refused(role.value, in_validator=True)
    return operator_refused(message)
