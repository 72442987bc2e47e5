"""Who may ask the codec server to decode: the holder of its static bearer token (the
`temporal` CLI, scripts; or a browser whose codec endpoint names it as the path's first
part, `http://127.0.0.1:8888/<token>`, since the Web UI sends no header of its own), or an
operator signed in to the Temporal UI, whose access token the UI passes on
(`TEMPORAL_CODEC_PASS_ACCESS_TOKEN`) and which is checked against the identity provider's
signing keys (JWKS), audience and issuer."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from sagas.foundations import AccessTokenCheck


@dataclass(frozen=True)
class CodecAuthorisation:
    """The static token, the identity provider's access tokens, either, or (loopback only)
    neither."""

    token: str = ""
    access_tokens: AccessTokenCheck | None = None

    @property
    def required(self) -> bool:
        return bool(self.token) or self.access_tokens is not None

    def allows(self, authorization_header: str, path: str = "") -> bool:
        if not self.required:
            return True
        if self.token and self._named_in(path):
            return True
        scheme, _, given = authorization_header.partition(" ")
        if scheme.lower() != "bearer" or not given:
            return False
        if self.token and hmac.compare_digest(given.encode(), self.token.encode()):
            return True
        return self.access_tokens is not None and self.access_tokens.accepts(given)

    def _named_in(self, path: str) -> bool:
        """Whether the path's first part (before `/decode`) is the token."""
        parts = path.split("?")[0].strip("/").split("/")
        return len(parts) > 1 and hmac.compare_digest(parts[0].encode(), self.token.encode())
