"""The webhook receiver: a counterparty's callback becomes an event signal to its saga.

    POST /events/<saga type>/<key>/<event name>   a JSON object → 202
    unknown saga type or saga → 404; a body that is not a JSON object → 400

The HTTP server runs on a thread (standard library); each callback is signalled on the
caller's event loop, where the Temporal client lives.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from sagas.client import FundsagaClient
from sagas.foundations import InvalidRequestError, SagaNotFoundError

SIGNAL_TIMEOUT_SECONDS = 10.0


class WebhookServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, client: FundsagaClient, loop: asyncio.AbstractEventLoop, host: str, port: int
    ) -> None:
        super().__init__((host, port), _Handler)
        self.client = client
        self.loop = loop

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: WebhookServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a provider may call back many times a second."""

    def do_POST(self) -> None:
        parts = [unquote(p) for p in self.path.split("/")]
        if len(parts) != 5 or parts[:2] != ["", "events"] or not all(parts[2:]):
            self._answer(HTTPStatus.NOT_FOUND, "expected /events/<saga type>/<key>/<event name>")
            return
        payload = self._payload()
        if payload is None:
            self._answer(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
            return
        self._answer(*self._deliver(parts[2], parts[3], parts[4], payload))

    def _payload(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _deliver(
        self, saga_type: str, key: str, name: str, payload: dict[str, Any]
    ) -> tuple[HTTPStatus, str]:
        try:
            saga = self.server.client.saga(saga_type, key)
        except InvalidRequestError as err:
            return HTTPStatus.NOT_FOUND, str(err)
        signal = saga.signal_event(name, payload)
        try:
            asyncio.run_coroutine_threadsafe(signal, self.server.loop).result(
                SIGNAL_TIMEOUT_SECONDS
            )
        except SagaNotFoundError as err:
            return HTTPStatus.NOT_FOUND, str(err)
        except Exception as err:  # the provider retries a callback that was not taken
            return HTTPStatus.SERVICE_UNAVAILABLE, f"not delivered: {type(err).__name__}"
        return HTTPStatus.ACCEPTED, f"{name} delivered to {saga.saga_id}"

    def _answer(self, status: HTTPStatus, message: str) -> None:
        data = json.dumps({"status": status.value, "message": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@asynccontextmanager
async def serve_webhooks(
    client: FundsagaClient, port: int = 0, host: str = "127.0.0.1"
) -> AsyncIterator[WebhookServer]:
    """Receive callbacks on `host:port` (0: any free port) while the context is open."""
    server = WebhookServer(client, asyncio.get_running_loop(), host, port)
    thread = threading.Thread(target=server.serve_forever, name="webhooks", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        await asyncio.to_thread(server.shutdown)
        server.server_close()
