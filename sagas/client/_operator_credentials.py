"""What an operator action carries as proof of who sends it: an access token bound to the
action (an RFC 9396 authorization detail naming the workflow, the act and, for an approval,
the proposal), used once.

In production the token comes from the organisation's identity provider (FUNDSAGA_OPERATOR_TOKEN),
requested with the authorization detail `OperatorBinding.authorization_detail()` gives (the
refusal of a token bound to something else prints it). `fundsaga dev`, the demo and the tests
use a development identity provider instead: a signing key made at set-up, whose JWKS the
development worker trusts and nothing else does; it mints a bound token for every action.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from sagas.engine import (
    AUTHORIZATION_DETAILS_CLAIM,
    DEFAULT_MAX_TOKEN_LIFETIME,
    DEFAULT_ROLES_CLAIM,
    OperatorBinding,
    OperatorRole,
    OperatorTokenCheck,
)
from sagas.foundations import (
    AccessTokenCheck,
    InvalidRequestError,
    OperatorRefusedError,
    Settings,
    configured_access_tokens,
    os_user,
    write_new_file,
)

DEV_ISSUER = "fundsaga-dev"
DEV_AUDIENCE = "fundsaga"
DEV_TOKEN_SECONDS = 300
ALL_ROLES = (OperatorRole.OPERATOR, OperatorRole.APPROVER)


class OperatorCredential(Protocol):
    """Who operator actions are by, and the proof of it."""

    @property
    def name(self) -> str:
        """The operator's name as the caller sees it (the worker records the verified one)."""
        ...

    def token(self, binding: OperatorBinding) -> str:
        """An access token for the one action `binding` names."""
        ...


@dataclass(frozen=True)
class AccessToken:
    """A token the organisation's identity provider issued to the operator."""

    value: str

    @property
    def name(self) -> str:
        try:
            claims = jwt.decode(self.value, options={"verify_signature": False})
        except jwt.PyJWTError:
            return "(unreadable token)"
        return str(claims.get("preferred_username") or claims.get("sub") or "(no subject)")

    def token(self, binding: OperatorBinding) -> str:
        """The token, if it is bound to `binding`; else OperatorRefusedError saying which
        authorization detail to request from the identity provider (nothing is sent)."""
        try:
            claims = jwt.decode(self.value, options={"verify_signature": False})
        except jwt.PyJWTError as err:
            raise OperatorRefusedError(f"FUNDSAGA_OPERATOR_TOKEN is no JWT: {err}") from err
        unbound = binding.refusal(claims)
        if unbound is not None:
            detail = json.dumps([binding.authorization_detail()])
            raise OperatorRefusedError(
                f"FUNDSAGA_OPERATOR_TOKEN is not for this action ({unbound}): request a token "
                f"from your identity provider with {AUTHORIZATION_DETAILS_CLAIM}={detail}"
            )
        return self.value


class DevIdentityProvider:
    """A development identity provider in `directory`: an ES256 signing key (made on first use,
    readable by its owner only) and its public JWKS, which the development worker trusts."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.key_path = directory / "signing-key.pem"
        self.jwks_path = directory / "jwks.json"
        if not self.key_path.exists():
            self._make_key()
        key = serialization.load_pem_private_key(self.key_path.read_bytes(), None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise InvalidRequestError("FUNDSAGA_DEV_IDENTITY", f"{self.key_path} is no EC key")
        self._key = key
        self._kid = json.loads(self.jwks_path.read_text())["keys"][0]["kid"]

    def _make_key(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        write_new_file(self.key_path, pem, 0o600)
        public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
        public |= {"kid": uuid.uuid4().hex[:16], "use": "sig", "alg": "ES256"}
        self.jwks_path.write_text(json.dumps({"keys": [public]}, indent=2))

    def mint(
        self,
        name: str,
        roles: Iterable[OperatorRole] = ALL_ROLES,
        binding: OperatorBinding | None = None,
        lifetime: timedelta = timedelta(seconds=DEV_TOKEN_SECONDS),
        issued_at: datetime | None = None,
    ) -> str:
        """A token naming `name` (as `sub` and `preferred_username`) with `roles`, bound to
        `binding` (unbound, it authorises no action: tests forge with it), issued at
        `issued_at` (a time-skipping test server's time) or now."""
        now = int(issued_at.timestamp() if issued_at is not None else time.time())
        claims: dict[str, object] = {
            "iss": DEV_ISSUER,
            "aud": DEV_AUDIENCE,
            "sub": name,
            "preferred_username": name,
            DEFAULT_ROLES_CLAIM: [role.value for role in roles],
            "iat": now,
            "exp": now + int(lifetime.total_seconds()),
            "jti": uuid.uuid4().hex,
        }
        if binding is not None:
            claims[AUTHORIZATION_DETAILS_CLAIM] = [binding.authorization_detail()]
        return self.sign(claims)

    def sign(self, claims: dict[str, object]) -> str:
        """`claims` signed by this provider's key, whatever they say (tests forge with it)."""
        return jwt.encode(claims, self._key, algorithm="ES256", headers={"kid": self._kid})

    def operator(self, name: str, roles: Iterable[OperatorRole] = ALL_ROLES) -> DevOperator:
        return DevOperator(name, self, tuple(roles))

    def check(self, max_lifetime: timedelta = DEFAULT_MAX_TOKEN_LIFETIME) -> OperatorTokenCheck:
        """What a worker that trusts this provider checks tokens with (its keys held)."""
        tokens = AccessTokenCheck(str(self.jwks_path), DEV_AUDIENCE, DEV_ISSUER, held=True)
        return OperatorTokenCheck(tokens, max_lifetime=max_lifetime)


@dataclass(frozen=True)
class DevOperator:
    """An operator of the development identity provider: a fresh token for every action."""

    name: str
    provider: DevIdentityProvider
    roles: tuple[OperatorRole, ...] = ALL_ROLES
    issued_at: datetime | None = None
    """When its tokens are issued: None is now; a time-skipping test server's time when its
    workflows, which judge expiry by their own clock, run ahead of this host's."""

    def token(self, binding: OperatorBinding) -> str:
        return self.provider.mint(self.name, self.roles, binding, issued_at=self.issued_at)


def required_operator(operator: OperatorCredential | None) -> OperatorCredential:
    """`operator`; OperatorRefusedError saying how to get one when there is none."""
    if operator is None:
        raise OperatorRefusedError(
            "no operator identity: set FUNDSAGA_OPERATOR_TOKEN to your access token "
            "(or, on `fundsaga dev`, FUNDSAGA_OPERATOR to your name)"
        )
    return operator


def bound_token(operator: OperatorCredential | None, binding: OperatorBinding) -> str:
    """`operator`'s token for the one action `binding` names; OperatorRefusedError saying which
    authorization detail to request when there is no operator."""
    if operator is None:
        detail = json.dumps([binding.authorization_detail()])
        raise OperatorRefusedError(
            "no operator identity: set FUNDSAGA_OPERATOR_TOKEN to an access token from your "
            f"identity provider with {AUTHORIZATION_DETAILS_CLAIM}={detail} (or, on "
            "`fundsaga dev`, FUNDSAGA_OPERATOR to your name)"
        )
    return operator.token(binding)


def configured_operator(settings: Settings) -> OperatorCredential | None:
    """FUNDSAGA_OPERATOR_TOKEN; else, where `fundsaga dev` made a development identity
    provider, FUNDSAGA_OPERATOR (or the OS user) signed in to it; else None."""
    token = settings.operator_token.get_secret_value().strip()
    if token:
        return AccessToken(token)
    directory = Path(settings.dev_identity)
    if (directory / "signing-key.pem").exists():
        name = settings.operator.strip() or os_user()
        # Every role: on a development host, distinct names stand for the distinct people.
        return DevIdentityProvider(directory).operator(name, tuple(OperatorRole))
    return None


def configured_operator_check(settings: Settings) -> OperatorTokenCheck | None:
    """The identity provider a worker trusts (FUNDSAGA_OPERATOR_JWKS, with its audience and
    issuer); None when none is configured."""
    tokens = configured_access_tokens(
        ("FUNDSAGA_OPERATOR_JWKS", settings.operator_jwks),
        ("FUNDSAGA_OPERATOR_AUDIENCE", settings.operator_audience),
        ("FUNDSAGA_OPERATOR_ISSUER", settings.operator_issuer),
        held=True,
    )
    if tokens is None:
        return None
    lifetime = timedelta(seconds=settings.operator_token_max_lifetime)
    return OperatorTokenCheck(tokens, settings.operator_roles_claim, lifetime)
