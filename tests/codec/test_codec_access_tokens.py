"""The codec server and an identity provider: the access token the Temporal UI passes on for a
signed-in operator is checked against the provider's signing keys (JWKS served over HTTP),
its audience, issuer and expiry; the static token still works for the CLI."""

from __future__ import annotations

import json
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from sagas.codec import PayloadKeys
from sagas.servers import AccessTokenCheck, CodecAuthorisation, free_port, serve_codec

KEYS = PayloadKeys.parse(PayloadKeys.generate("k1"))
CLI_TOKEN = secrets.token_urlsafe(32)
AUDIENCE, ISSUER, KID = "temporal-ui", "https://idp.example/realms/payments", "signing-1"
PROVIDER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
STRANGER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    """The provider's JWKS endpoint: its public key, as identity providers publish it."""
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(PROVIDER_KEY.public_key()))
    body = json.dumps({"keys": [{**public, "kid": KID, "use": "sig", "alg": "RS256"}]}).encode()

    class Jwks(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/certs"
    server.shutdown()
    server.server_close()


def access_token(key: rsa.RSAPrivateKey = PROVIDER_KEY, **claims: Any) -> str:
    now = int(time.time())
    payload = {"sub": "anna", "aud": AUDIENCE, "iss": ISSUER, "iat": now, "exp": now + 300}
    return jwt.encode({**payload, **claims}, key, algorithm="RS256", headers={"kid": KID})


def decode_status(url: str, authorization: str) -> int:
    request = urllib.request.Request(
        f"{url}/decode",
        data=b'{"payloads": []}',
        method="POST",
        headers={"Authorization": authorization, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        refused.close()
        return refused.code


@pytest.fixture
def codec_url(jwks_url: str) -> Iterator[str]:
    assert KEYS is not None
    auth = CodecAuthorisation(CLI_TOKEN, AccessTokenCheck(jwks_url, AUDIENCE, ISSUER))
    with serve_codec(KEYS, auth, [], "0.0.0.0", free_port()) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"


def test_a_signed_in_operator_s_access_token_decodes(codec_url: str) -> None:
    assert decode_status(codec_url, f"Bearer {access_token()}") == 200


def test_the_static_token_still_decodes(codec_url: str) -> None:
    assert decode_status(codec_url, f"Bearer {CLI_TOKEN}") == 200


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(access_token(exp=int(time.time()) - 60), id="expired"),
        pytest.param(access_token(aud="another-app"), id="other-audience"),
        pytest.param(access_token(iss="https://elsewhere.example"), id="other-issuer"),
        pytest.param(access_token(STRANGER_KEY), id="signed-by-a-stranger"),
        pytest.param(
            jwt.encode(
                {"aud": AUDIENCE, "iss": ISSUER, "exp": int(time.time()) + 300},
                "a-shared-secret-of-thirty-two-bytes!",
                algorithm="HS256",
                headers={"kid": KID},
            ),
            id="symmetric",
        ),
        pytest.param("not-a-jwt", id="garbage"),
    ],
)
def test_other_tokens_are_refused(codec_url: str, token: str) -> None:
    assert decode_status(codec_url, f"Bearer {token}") == 401
