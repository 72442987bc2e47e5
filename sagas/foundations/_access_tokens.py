"""Access tokens from an identity provider: signed by one of its keys (JWKS), for an audience,
from an issuer, not expired. The codec server and operator actions both check them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jwt

from sagas.foundations._errors import InvalidRequestError

ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
"""Asymmetric only: a token signed with a shared secret could be minted by anyone who has it."""
LEEWAY_SECONDS = 30
"""Clock difference tolerated between the identity provider and the checking process."""


class AccessTokenRefusedError(Exception):
    """The token is not one the identity provider issued for this audience, or it expired."""


class JwksUnavailableError(Exception):
    """The identity provider's keys could not be fetched: an infrastructure fault, retried."""


class _JwksFile:
    """Signing keys in a JWKS file (a development identity provider, or keys copied by hand);
    read again when a token names a key it does not hold, so a rotation needs no restart."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def key_for(self, token: str) -> Any:
        kid = jwt.get_unverified_header(token).get("kid")
        try:
            keys = jwt.PyJWKSet.from_dict(json.loads(self.path.read_text()))
        except (OSError, ValueError, jwt.PyJWKSetError) as err:
            raise JwksUnavailableError(f"cannot read the JWKS file {self.path}: {err}") from err
        for key in keys.keys:
            if kid is None or key.key_id == kid:
                return key.key
        raise AccessTokenRefusedError(
            f"access token refused: no signing key {kid!r} in the identity provider's JWKS"
        )


class _JwksUrl:
    def __init__(self, url: str) -> None:
        self._client = jwt.PyJWKClient(url, cache_keys=True)

    def key_for(self, token: str) -> Any:
        try:
            return self._client.get_signing_key_from_jwt(token).key
        except jwt.PyJWKClientConnectionError as err:
            raise JwksUnavailableError(str(err)) from err


class AccessTokenCheck:
    """An identity provider's access token: signed by a key of `jwks` (an https URL, or a
    file's path), for `audience`, from `issuer`, not expired. Keys fetched from a URL are
    cached."""

    def __init__(self, jwks: str, audience: str, issuer: str) -> None:
        self.audience = audience
        self.issuer = issuer
        is_url = jwks.startswith(("https://", "http://"))
        self._keys = _JwksUrl(jwks) if is_url else _JwksFile(Path(jwks))

    def claims(self, token: str) -> dict[str, Any]:
        """The token's claims; AccessTokenRefusedError says why it is refused,
        JwksUnavailableError that the keys could not be fetched."""
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._keys.key_for(token),
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "aud", "iss"]},
            )
        except jwt.PyJWTError as err:
            raise AccessTokenRefusedError(f"access token refused: {err}") from err
        return claims

    def accepts(self, token: str) -> bool:
        try:
            self.claims(token)
        except (AccessTokenRefusedError, JwksUnavailableError):
            return False
        return True


def configured_access_tokens(
    jwks: tuple[str, str], audience: tuple[str, str], issuer: tuple[str, str]
) -> AccessTokenCheck | None:
    """The check of settings given as (setting name, value) pairs: None without a JWKS; with
    one, InvalidRequestError naming the audience or issuer setting left empty."""
    if not jwks[1]:
        return None
    for setting, value in (audience, issuer):
        if not value:
            raise InvalidRequestError(setting, f"required with {jwks[0]}")
    return AccessTokenCheck(jwks[1], audience[1], issuer[1])
