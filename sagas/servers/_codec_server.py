"""The codec server: the Temporal UI and the `temporal` CLI show encrypted payloads decoded, to
callers that hold the bearer token.

    POST .../decode   Payloads (protobuf JSON) in, Payloads out, opened
    POST .../encode   Payloads in, sealed under the first key
    OPTIONS           CORS preflight, for the UI's origins only

Only the last part of the path counts, as the codec-server protocol asks. Every POST must
carry `Authorization: Bearer <FUNDSAGA_CODEC_SERVER_TOKEN>`, or the access token of an
operator signed in to the Temporal UI when FUNDSAGA_CODEC_SERVER_JWKS_URL is set; with neither
configured the server only listens on the loopback interface, where anyone on the machine is
trusted anyway.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from temporalio.api.common.v1 import Payloads

from sagas.codec import PayloadCipher, PayloadDecryptionError, PayloadKeys
from sagas.foundations import InvalidRequestError, checked_secret
from sagas.servers._codec_auth import CodecAuthorisation

MAX_BODY_BYTES = 16 * 1024 * 1024
ALLOWED_HEADERS = "Authorization, Content-Type, X-Namespace"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class CodecServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        keys: PayloadKeys,
        auth: str | CodecAuthorisation,
        origins: list[str],
        host: str,
        port: int,
    ) -> None:
        """`auth`: the static bearer token, or what a caller may present (the token, the
        identity provider's access tokens)."""
        self.auth = auth if isinstance(auth, CodecAuthorisation) else CodecAuthorisation(auth)
        if not self.auth.required and not _is_loopback(host):
            raise InvalidRequestError(
                "FUNDSAGA_CODEC_SERVER_TOKEN",
                f"required to listen on {host} (or FUNDSAGA_CODEC_SERVER_JWKS_URL): it would "
                "decrypt payloads for anyone",
            )
        if self.auth.token:
            checked_secret(self.auth.token, "FUNDSAGA_CODEC_SERVER_TOKEN")
        super().__init__((host, port), _Handler)
        self.cipher = PayloadCipher(keys)
        self.origins = frozenset(origins)
        self.loopback_only = _is_loopback(host)
        """On the loopback interface, a request must name a loopback host: a web page whose own
        name resolves to 127.0.0.1 (DNS rebinding) is refused."""

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def serve_codec(
    keys: PayloadKeys, auth: str | CodecAuthorisation, origins: list[str], host: str, port: int
) -> Iterator[CodecServer]:
    server = CodecServer(keys, auth, origins, host, port)
    thread = threading.Thread(target=server.serve_forever, name="codec-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Handler(BaseHTTPRequestHandler):
    server: CodecServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the UI asks for every payload it shows."""

    def do_OPTIONS(self) -> None:
        if self._foreign_host():
            return
        self._answer(HTTPStatus.NO_CONTENT, None)

    def do_POST(self) -> None:
        if self._foreign_host():
            return
        operation = self.path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
        if operation not in ("encode", "decode"):
            self._answer(HTTPStatus.NOT_FOUND, {"error": "expected .../encode or .../decode"})
            return
        if not self._authorised():
            self._answer(HTTPStatus.UNAUTHORIZED, {"error": "a valid bearer token is required"})
            return
        payloads = self._payloads()
        if payloads is None:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": "the body must be Payloads as JSON"})
            return
        try:
            if operation == "encode":
                done = self.server.cipher.seal(payloads.payloads)
            else:
                done = self.server.cipher.open(payloads.payloads)
        except PayloadDecryptionError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        self._answer(HTTPStatus.OK, json_format.MessageToDict(Payloads(payloads=done)))

    def _foreign_host(self) -> bool:
        """Answered 421 when a loopback server is reached under a name that is not loopback."""
        if not self.server.loopback_only:
            return False
        host = self.headers.get("Host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name.strip("[]") in LOOPBACK_NAMES:
            return False
        self._answer(HTTPStatus.MISDIRECTED_REQUEST, {"error": "this server answers loopback only"})
        return True

    def _authorised(self) -> bool:
        return self.server.auth.allows(self.headers.get("Authorization", ""), self.path)

    def _payloads(self) -> Payloads | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return None
        if not 0 < length <= MAX_BODY_BYTES:
            return None
        try:
            return json_format.Parse(self.rfile.read(length), Payloads())
        except (json_format.ParseError, UnicodeDecodeError):
            return None

    def _answer(self, status: HTTPStatus, body: dict[str, Any] | None) -> None:
        self.send_response(status)
        origin = self.headers.get("Origin")
        if origin and origin in self.server.origins:
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Access-Control-Allow-Credentials", "true")
            self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
            self.send_header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
            self.send_header("Vary", "Origin")
        if body is None:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = json.dumps(body).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
