"""JSON over HTTP with the standard library, and a callback sink that counts what it got."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def post_bytes(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST `body` as given with exactly `headers`; the status, also when the server answers
    before it has read the body."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=15)
    try:
        connection.putrequest("POST", parts.path)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        # Refused before the body was read, the answer is already waiting on the socket.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.send(body)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


def call(url: str, method: str = "GET", body: Any = None, timeout: float = 10.0) -> Answer:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Answer(answer.status, json.loads(answer.read()), dict(answer.headers))
    except urllib.error.HTTPError as err:
        with err:
            return Answer(err.code, json.loads(err.read()), dict(err.headers))


@dataclass
class CallbackSink:
    """Receives the provider's settlement callbacks on 127.0.0.1."""

    received: list[Any] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def start(self) -> tuple[str, ThreadingHTTPServer]:
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                with sink.arrived:
                    sink.received.append(json.loads(self.rfile.read(length)))
                    sink.arrived.notify_all()
                self.send_response(204)
                self.end_headers()

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{server.server_address[1]}/settled", server

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Any]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout=timeout)
            return list(self.received)
