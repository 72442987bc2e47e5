"""Who an operator action is by: an access token from the identity provider the worker trusts,
checked in the update's validator before the action reaches the history (`_operator_proofs`),
then by the identity activity, which spends its `jti`, before the saga acts.

A token is accepted only if it is signed by the provider, for the worker's audience, unexpired
at the workflow's time, no longer-lived than the ceiling (FUNDSAGA_OPERATOR_TOKEN_MAX_LIFETIME),
carries a `jti`, grants the role, and is bound to this very action (`OperatorBinding`).

The saga never takes the name the caller typed: it records the verified principal, its roles
and a digest of the token (never the token). Maker and checker must be distinct principals:
another (issuer, subject), and no shown name a person could take for the other's
(`same_principal`).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

from sagas.engine._metrics import operator_action_refused
from sagas.engine._operator_binding import OperatorBinding
from sagas.foundations import (
    AccessTokenCheck,
    AccessTokenRefusedError,
    JwksUnavailableError,
    OperatorRefusedError,
    names_look_alike,
    principal_key,
)

OPERATOR_IDENTITY_ACTIVITY = "operator.verify"
DEFAULT_ROLES_CLAIM = "fundsaga_roles"
MAX_PROOF_LENGTH = 8192
"""Characters of an access token; identity providers issue far shorter ones."""
IDENTITY_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    maximum_interval=timedelta(seconds=5),
    non_retryable_error_types=[OperatorRefusedError.__name__],
)
IDENTITY_TIMEOUT = timedelta(seconds=10)
IDENTITY_DEADLINE = timedelta(minutes=1)
"""How long an action waits for an unreachable identity provider before it is refused."""
DEFAULT_MAX_TOKEN_LIFETIME = timedelta(minutes=15)
"""The longest-lived operator token accepted (FUNDSAGA_OPERATOR_TOKEN_MAX_LIFETIME)."""
MAX_TOKEN_ID_LENGTH = 200


class OperatorRole(StrEnum):
    """What an operator may do, as the identity provider's roles claim grants it."""

    OPERATOR = "operator"  # retry, propose, account and schedule actions
    APPROVER = "approver"  # approve another operator's proposal (the checker)
    TREASURY = "treasury"  # approve a break's adjustment beyond the break's difference


class VerifiedOperator(BaseModel):
    """The operator an action is by, as the worker verified it."""

    issuer: str
    subject: str
    """The identity provider's id of the operator (`sub`)."""
    name: str
    """How the identity provider names them (`preferred_username`, else `sub`)."""
    roles: list[OperatorRole]
    token_id: str = ""
    """The token's `jti`, when it has one."""
    token_sha256: str
    expires_at: datetime

    def same_principal(self, other: VerifiedOperator) -> bool:
        """Whether `other` is this operator, or could be taken for them: the identity provider's
        (issuer, subject) are the same, or a name people are shown for one (preferred_username,
        subject) looks like one of the other's (UTS #39 confusable skeletons)."""
        if (self.issuer, self.subject) == (other.issuer, other.subject):
            return True
        shown, others = {self.name, self.subject}, {other.name, other.subject}
        return any(names_look_alike(mine, theirs) for mine in shown for theirs in others)


class ProofCheck(BaseModel):
    """What the identity activity is asked: is `proof` a token of an operator with `role`,
    bound to `binding`, valid at `checked_at` (the workflow's time)?"""

    proof: str = Field(max_length=MAX_PROOF_LENGTH)
    role: OperatorRole
    binding: OperatorBinding
    checked_at: datetime


class OperatorTokenCheck:
    """The identity provider a worker trusts: its keys, audience, issuer and roles claim."""

    def __init__(
        self,
        tokens: AccessTokenCheck,
        roles_claim: str = DEFAULT_ROLES_CLAIM,
        max_lifetime: timedelta = DEFAULT_MAX_TOKEN_LIFETIME,
    ) -> None:
        self.tokens = tokens
        self.roles_claim = roles_claim
        self.max_lifetime = max_lifetime

    def verify(self, check: ProofCheck) -> VerifiedOperator:
        """The verified operator; OperatorRefusedError says why not, JwksUnavailableError that
        the identity provider's keys could not be fetched (retried)."""
        try:
            claims = self.tokens.claims(check.proof, check.checked_at)
        except AccessTokenRefusedError as err:
            raise OperatorRefusedError(str(err)) from err
        self._refuse_long_lived(claims, check.checked_at)
        token_id = claims.get("jti")
        if not isinstance(token_id, str) or not 0 < len(token_id) <= MAX_TOKEN_ID_LENGTH:
            raise OperatorRefusedError(
                "access token refused: it has no token id (jti), so it could be used twice"
            )
        unbound = check.binding.refusal(claims)
        if unbound is not None:
            raise OperatorRefusedError(f"access token refused: {unbound}")
        operator = self._operator(claims, check.proof)
        if check.role not in operator.roles:
            raise OperatorRefusedError(
                f"{operator.name} lacks the {check.role.value!r} role "
                f"(the token's {self.roles_claim!r} claim)"
            )
        return operator

    def _refuse_long_lived(self, claims: dict[str, Any], now: datetime) -> None:
        issued = claims.get("iat")
        start = issued if isinstance(issued, int | float) else now.timestamp()
        lifetime = timedelta(seconds=float(claims["exp"]) - float(start))
        if lifetime > self.max_lifetime:
            raise OperatorRefusedError(
                f"access token refused: it is valid for {lifetime}, longer than the "
                f"{self.max_lifetime} this worker accepts (FUNDSAGA_OPERATOR_TOKEN_MAX_LIFETIME)"
            )

    def _operator(self, claims: dict[str, Any], token: str) -> VerifiedOperator:
        subject = claims.get("sub")
        if not isinstance(subject, str) or not principal_key(subject):
            raise OperatorRefusedError("access token refused: it names no subject (sub)")
        granted = claims.get(self.roles_claim, [])
        granted = granted.split() if isinstance(granted, str) else granted
        roles = [OperatorRole(r) for r in OperatorRole if r.value in set(map(str, granted))]
        name = claims.get("preferred_username")
        return VerifiedOperator(
            issuer=str(claims["iss"]),
            subject=subject,
            name=name if isinstance(name, str) and principal_key(name) else subject,
            roles=roles,
            token_id=str(claims.get("jti", "")),
            token_sha256=hashlib.sha256(token.encode()).hexdigest(),
            expires_at=datetime.fromtimestamp(int(claims["exp"]), UTC),
        )


def verify_on_worker(check: OperatorTokenCheck | None, request: ProofCheck) -> VerifiedOperator:
    """The identity activity's body: an ApplicationError the saga reads as a refusal, or a
    retryable one while the identity provider's keys are unreachable."""
    if check is None:
        raise refused_on_worker(
            request.role,
            "this worker trusts no identity provider (FUNDSAGA_OPERATOR_JWKS): "
            "operator actions are refused",
        )
    try:
        return check.verify(request)
    except OperatorRefusedError as err:
        raise refused_on_worker(request.role, str(err)) from err
    except JwksUnavailableError as err:
        raise ApplicationError(str(err), type=JwksUnavailableError.__name__) from err


def refused_on_worker(role: OperatorRole, message: str) -> ApplicationError:
    """The identity activity's refusal, counted: the saga reads it as OperatorRefusedError."""
    operator_action_refused(role.value)
    return ApplicationError(message, type=OperatorRefusedError.__name__, non_retryable=True)


def operator_refused(
    message: str, error_type: str = OperatorRefusedError.__name__
) -> ApplicationError:
    """An operator action refused on the workflow's side: nothing changed."""
    return ApplicationError(message, type=error_type, non_retryable=True)


async def verified_operator(
    proof: str, role: OperatorRole, binding: OperatorBinding
) -> VerifiedOperator:
    """Workflow side: ask the worker's identity activity, which also spends the token's `jti`;
    raises the refusal for the update."""
    if not proof:
        raise operator_refused(
            "an operator action needs a proof of identity: an access token from the identity "
            "provider the worker trusts (FUNDSAGA_OPERATOR_TOKEN)"
        )
    try:
        operator: VerifiedOperator = await workflow.execute_activity(
            OPERATOR_IDENTITY_ACTIVITY,
            ProofCheck(proof=proof, role=role, binding=binding, checked_at=workflow.now()),
            result_type=VerifiedOperator,
            start_to_close_timeout=IDENTITY_TIMEOUT,
            schedule_to_close_timeout=IDENTITY_DEADLINE,
            retry_policy=IDENTITY_RETRY,
        )
    except ActivityError as err:
        cause = err.cause
        message = cause.message if isinstance(cause, ApplicationError) else str(err)
        raise operator_refused(message) from err
    return operator
