"""What an operator action carries as proof of who sends it: an access token.

In production the token comes from the organisation's identity provider (FUNDSAGA_OPERATOR_TOKEN).
`fundsaga dev`, the demo and the tests use a development identity provider instead: a signing
key made at set-up, whose JWKS the development worker trusts and nothing else does.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from sagas.engine import DEFAULT_ROLES_CLAIM, OperatorRole, OperatorTokenCheck
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

    def token(self) -> str:
        """An access token to send with the next action."""
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

    def token(self) -> str:
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

    def mint(self, name: str, roles: Iterable[OperatorRole] = ALL_ROLES) -> str:
        """A token naming `name` (as `sub` and `preferred_username`) with `roles`."""
        now = int(time.time())
        claims = {
            "iss": DEV_ISSUER,
            "aud": DEV_AUDIENCE,
            "sub": name,
            "preferred_username": name,
            DEFAULT_ROLES_CLAIM: [role.value for role in roles],
            "iat": now,
            "exp": now + DEV_TOKEN_SECONDS,
            "jti": uuid.uuid4().hex,
        }
        return self.sign(claims)

    def sign(self, claims: dict[str, object]) -> str:
        """`claims` signed by this provider's key, whatever they say (tests forge with it)."""
        return jwt.encode(claims, self._key, algorithm="ES256", headers={"kid": self._kid})

    def operator(self, name: str, roles: Iterable[OperatorRole] = ALL_ROLES) -> DevOperator:
        return DevOperator(name, self, tuple(roles))

    def check(self) -> OperatorTokenCheck:
        """What a worker that trusts this provider checks tokens with."""
        return OperatorTokenCheck(AccessTokenCheck(str(self.jwks_path), DEV_AUDIENCE, DEV_ISSUER))


@dataclass(frozen=True)
class DevOperator:
    """An operator of the development identity provider: a fresh token for every action."""

    name: str
    provider: DevIdentityProvider
    roles: tuple[OperatorRole, ...] = ALL_ROLES

    def token(self) -> str:
        return self.provider.mint(self.name, self.roles)


def required_operator(operator: OperatorCredential | None) -> OperatorCredential:
    """`operator`; OperatorRefusedError saying how to get one when there is none."""
    if operator is None:
        raise OperatorRefusedError(
            "no operator identity: set FUNDSAGA_OPERATOR_TOKEN to your access token "
            "(or, on `fundsaga dev`, FUNDSAGA_OPERATOR to your name)"
        )
    return operator


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
    )
    return None if tokens is None else OperatorTokenCheck(tokens, settings.operator_roles_claim)
