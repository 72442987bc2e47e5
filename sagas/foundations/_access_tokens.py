"""Access tokens from an identity provider: signed by one of its keys (JWKS), for an audience,
from an issuer, not expired. The codec server and operator actions both check them."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import jwt

from sagas.foundations._errors import InvalidRequestError

ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
"""Asymmetric only: a token signed with a shared secret could be minted by anyone who has it."""
LEEWAY_SECONDS = 30
"""Clock difference tolerated between the identity provider and the checking process."""
REFRESH_SPACING_SECONDS = 30.0
"""Held keys are fetched again at most this often, however many tokens name an unknown key."""
JWKS_FETCH_TIMEOUT_SECONDS = 10.0
MAX_JWKS_BYTES = 1 << 20

log = logging.getLogger("fundsaga.identity")


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


class HeldJwks:
    """Signing keys held in memory, read from `source` (a JWKS file or URL) when made and by
    `refresh`: `key_for` does no I/O, so a Temporal update validator may call it. A token naming
    an unknown key is refused and asks for a refresh in the background, at most one every
    REFRESH_SPACING_SECONDS, so a rotation reaches the worker without a restart."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._keys: dict[str | None, Any] = {}
        self._lock = threading.Lock()
        self._last_refresh = -REFRESH_SPACING_SECONDS
        """When a token last asked for a refresh (monotonic): the first miss refreshes at once."""
        self._refresher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jwks-refresh")
        try:
            self.refresh()
        except JwksUnavailableError as err:  # fail closed until a refresh succeeds
            log.warning("%s; every token is refused until its keys are read", err)

    def refresh(self) -> None:
        """Read the keys again from the source (I/O); JwksUnavailableError if it cannot."""
        try:
            document = json.loads(self._read())
            keys = jwt.PyJWKSet.from_dict(document).keys
        except (OSError, ValueError, jwt.PyJWKSetError) as err:
            raise JwksUnavailableError(f"cannot read the JWKS {self.source}: {err}") from err
        held = {key.key_id: key.key for key in keys}
        with self._lock:
            self._keys = held

    def _read(self) -> bytes:
        if not self.source.startswith(("https://", "http://")):
            return Path(self.source).read_bytes()[:MAX_JWKS_BYTES]
        with urllib.request.urlopen(self.source, timeout=JWKS_FETCH_TIMEOUT_SECONDS) as answer:
            body: bytes = answer.read(MAX_JWKS_BYTES)
        return body

    def key_for(self, token: str) -> Any:
        kid = jwt.get_unverified_header(token).get("kid")
        with self._lock:
            keys = dict(self._keys)
        if kid is None and len(keys) == 1:
            return next(iter(keys.values()))
        if kid in keys:
            return keys[kid]
        self._refresh_soon()
        raise AccessTokenRefusedError(
            f"access token refused: no signing key {kid!r} in the identity provider's JWKS "
            "as this worker holds it (read again in the background)"
        )

    def _refresh_soon(self) -> None:
        if time.monotonic() - self._last_refresh < REFRESH_SPACING_SECONDS:
            return
        self._last_refresh = time.monotonic()
        self._refresher.submit(self._refresh_logged)

    def _refresh_logged(self) -> None:
        try:
            self.refresh()
        except JwksUnavailableError as err:
            log.warning("%s", err)


class AccessTokenCheck:
    """An identity provider's access token: signed by a key of `jwks` (an https URL, or a
    file's path), for `audience`, from `issuer`, not expired. Keys fetched from a URL are
    cached; `held=True` holds them in memory (HeldJwks) so that checking does no I/O."""

    def __init__(self, jwks: str, audience: str, issuer: str, *, held: bool = False) -> None:
        self.audience = audience
        self.issuer = issuer
        is_url = jwks.startswith(("https://", "http://"))
        self._keys: _JwksFile | _JwksUrl | HeldJwks
        if held:
            self._keys = HeldJwks(jwks)
        else:
            self._keys = _JwksUrl(jwks) if is_url else _JwksFile(Path(jwks))

    def claims(self, token: str, now: datetime | None = None) -> dict[str, Any]:
        """The token's claims; AccessTokenRefusedError says why it is refused,
        JwksUnavailableError that the keys could not be fetched. `now`, when given, is the time
        its expiry is compared with (a workflow's time) instead of this host's clock."""
        timed = now is None
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._keys.key_for(token),
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={
                    "require": ["exp", "aud", "iss"],
                    "verify_exp": timed,
                    "verify_nbf": timed,
                    "verify_iat": timed,
                },
            )
        except jwt.PyJWTError as err:
            raise AccessTokenRefusedError(f"access token refused: {err}") from err
        if now is not None:
            _check_times(claims, now.timestamp())
        return claims

    def accepts(self, token: str) -> bool:
        try:
            self.claims(token)
        except (AccessTokenRefusedError, JwksUnavailableError):
            return False
        return True


def _check_times(claims: dict[str, Any], now: float) -> None:
    """exp, nbf and iat against `now`, with the leeway, as PyJWT checks them on its own clock."""
    for claim in ("exp", "nbf", "iat"):
        value = claims.get(claim)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise AccessTokenRefusedError(f"access token refused: {claim} is not a number")
    if claims["exp"] <= now - LEEWAY_SECONDS:
        raise AccessTokenRefusedError("access token refused: Signature has expired")
    for claim in ("nbf", "iat"):
        if claims.get(claim, now) > now + LEEWAY_SECONDS:
            raise AccessTokenRefusedError(f"access token refused: {claim} is in the future")


def configured_access_tokens(
    jwks: tuple[str, str],
    audience: tuple[str, str],
    issuer: tuple[str, str],
    *,
    held: bool = False,
) -> AccessTokenCheck | None:
    """The check of settings given as (setting name, value) pairs: None without a JWKS; with
    one, InvalidRequestError naming the audience or issuer setting left empty. `held`: the keys
    are held in memory (HeldJwks)."""
    if not jwks[1]:
        return None
    for setting, value in (audience, issuer):
        if not value:
            raise InvalidRequestError(setting, f"required with {jwks[0]}")
    return AccessTokenCheck(jwks[1], audience[1], issuer[1], held=held)
