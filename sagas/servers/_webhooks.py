"""The webhook receiver: a provider's signed callback becomes an event signal to its saga.

    POST /events/<saga type>/<key>/<event name>   a signed JSON object with an `event_id` → 202

Refused before any saga is touched: an unknown path or saga type or saga → 404; a missing or
malformed `Content-Length` → 411 or 400; a body over FUNDSAGA_WEBHOOK_MAX_BODY → 413; a
signature that is missing, wrong or stale (`_webhook_auth`) → 401; a body that is not one JSON
object with an `event_id`, or that names a key twice → 400; an event id already delivered →
200, nothing sent; an event that no step the saga has yet to run waits for, or a closed saga →
409. Only then is the saga signalled, so no caller without the provider's secret can add to a
saga's history.

The HTTP server runs on a thread (standard library); each callback is signalled on the
caller's event loop, where the Temporal client lives.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from sagas.client import FundsagaClient, SagaHandle
from sagas.engine import SagaStatus, SagaView
from sagas.foundations import InvalidRequestError, SagaNotFoundError, loads_one_reading
from sagas.servers._webhook_auth import (
    MALFORMED,
    SIGNATURE_HEADER,
    SeenEvents,
    WebhookSecrets,
    parse_signature,
)

SIGNAL_TIMEOUT_SECONDS = 10.0
READ_TIMEOUT_SECONDS = 10.0
"""A caller that holds a connection without sending its body is dropped after this long."""
MAX_EVENT_ID = 128
OPEN = {SagaStatus.RUNNING, SagaStatus.NEEDS_ATTENTION}
"""A saga that may still run a step: running, or parked on one (an operator may run it again)."""


class RefusedError(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class WebhookServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        client: FundsagaClient,
        loop: asyncio.AbstractEventLoop,
        host: str,
        port: int,
        secrets: WebhookSecrets,
        max_body: int,
    ) -> None:
        super().__init__((host, port), _Handler)
        self.client = client
        self.loop = loop
        self.secrets = secrets
        self.max_body = max_body
        self.seen = SeenEvents()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: WebhookServer
    timeout = READ_TIMEOUT_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a provider may call back many times a second."""

    def do_POST(self) -> None:
        try:
            self._answer(*self._receive())
        except RefusedError as refused:
            self._answer(refused.status, str(refused))

    def _receive(self) -> tuple[HTTPStatus, str]:
        parts = [unquote(p) for p in self.path.split("/")]
        if len(parts) != 5 or parts[:2] != ["", "events"] or not all(parts[2:]):
            raise RefusedError(
                HTTPStatus.NOT_FOUND, "expected /events/<saga type>/<key>/<event name>"
            )
        saga_type, key, name = parts[2:]
        header = self.headers.get(SIGNATURE_HEADER)
        if header is not None and parse_signature(header) is None:
            raise RefusedError(HTTPStatus.BAD_REQUEST, MALFORMED)  # before the body is read
        body = self._body()
        now = time.time()
        problem = self.server.secrets.problem(saga_type, header or "", body, now)
        if problem is not None:
            raise RefusedError(HTTPStatus.UNAUTHORIZED, problem)
        payload = _payload(body)
        event = f"{saga_type}/{payload['event_id']}"
        if not self.server.seen.first_time(event, now):
            return HTTPStatus.OK, f"event {payload['event_id']} was delivered already"
        try:
            return self._deliver(saga_type, key, name, payload)
        except RefusedError:
            self.server.seen.forget(event)  # not delivered: the provider's retry must get through
            raise

    def _body(self) -> bytes:
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            raise RefusedError(HTTPStatus.LENGTH_REQUIRED, "Content-Length is required")
        # ASCII digits, a bounded count: str.isdigit() takes `²`, which int() refuses.
        if not (length_header.isascii() and length_header.isdigit() and len(length_header) <= 12):
            raise RefusedError(HTTPStatus.BAD_REQUEST, "Content-Length must be a number of bytes")
        length = int(length_header)
        if length > self.server.max_body:
            raise RefusedError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the body is {length} bytes; at most {self.server.max_body}",
            )
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            raise RefusedError(
                HTTPStatus.REQUEST_TIMEOUT, "the body did not arrive in time"
            ) from None
        if len(body) != length:
            raise RefusedError(HTTPStatus.BAD_REQUEST, "the body is shorter than Content-Length")
        return body

    def _deliver(
        self, saga_type: str, key: str, name: str, payload: dict[str, Any]
    ) -> tuple[HTTPStatus, str]:
        try:
            saga = self.server.client.saga(saga_type, key)
        except InvalidRequestError as err:
            raise RefusedError(HTTPStatus.NOT_FOUND, str(err)) from None
        delivery = _deliver_if_awaited(self.server.client, saga, name, payload)
        try:
            return asyncio.run_coroutine_threadsafe(delivery, self.server.loop).result(
                SIGNAL_TIMEOUT_SECONDS
            )
        except RefusedError:
            raise
        except SagaNotFoundError as err:
            raise RefusedError(HTTPStatus.NOT_FOUND, str(err)) from None
        except Exception as err:  # the provider retries a callback that was not taken
            reason = f"not delivered: {type(err).__name__}"
            raise RefusedError(HTTPStatus.SERVICE_UNAVAILABLE, reason) from None

    def _answer(self, status: HTTPStatus, message: str) -> None:
        data = json.dumps({"status": status.value, "message": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _payload(body: bytes) -> dict[str, Any]:
    try:
        payload = loads_one_reading(body)
    except InvalidRequestError as err:
        raise RefusedError(HTTPStatus.BAD_REQUEST, f"the body names {err.field!r} twice") from None
    except ValueError:
        raise RefusedError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object") from None
    if not isinstance(payload, dict):
        raise RefusedError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
    event_id = payload.get("event_id")
    if not isinstance(event_id, str) or not 0 < len(event_id) <= MAX_EVENT_ID:
        raise RefusedError(
            HTTPStatus.BAD_REQUEST, f"the body needs an event_id (1-{MAX_EVENT_ID} chars)"
        )
    return payload


async def _deliver_if_awaited(
    client: FundsagaClient, saga: SagaHandle, name: str, payload: dict[str, Any]
) -> tuple[HTTPStatus, str]:
    view = await saga.view()
    if view.status not in OPEN:
        raise RefusedError(HTTPStatus.CONFLICT, f"{saga.saga_id} is {view.status.value}")
    if name not in _awaited_from_now(client, view):
        raise RefusedError(
            HTTPStatus.CONFLICT, f"no step {saga.saga_id} has yet to run waits for {name}"
        )
    await saga.signal_event(name, payload)
    return HTTPStatus.ACCEPTED, f"{name} delivered to {saga.saga_id}"


def _awaited_from_now(client: FundsagaClient, view: SagaView) -> set[str]:
    """The events the saga's current step and the steps after it wait for."""
    steps = client.registry.get(view.saga_type).definition.steps
    names = [step.name for step in steps]
    start = names.index(view.current_step) if view.current_step in names else 0
    return {step.awaits for step in steps[start:] if step.awaits is not None}


@asynccontextmanager
async def serve_webhooks(
    client: FundsagaClient,
    secrets: WebhookSecrets,
    port: int = 0,
    host: str = "127.0.0.1",
    *,
    max_body: int = 65_536,
) -> AsyncIterator[WebhookServer]:
    """Receive callbacks signed with `secrets` on `host:port` (0: any free port) while the
    context is open."""
    server = WebhookServer(client, asyncio.get_running_loop(), host, port, secrets, max_body)
    thread = threading.Thread(target=server.serve_forever, name="webhooks", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        await asyncio.to_thread(server.shutdown)
        server.server_close()
