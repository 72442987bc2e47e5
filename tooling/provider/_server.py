"""The simulator's HTTP API (JSON), on the standard library's threading HTTP server.

POST   /payouts          {key, account, amount, currency, callback_url?}
POST   /validations      the same body: 200, or 422 with a reason where the scenario declines;
                         records nothing
GET    /payouts/<key>    accepted | settled | declined | unknown; 404 for a key never seen
POST   /scenarios        {key | account (glob), behaviour, options...}: how to answer; the
                         statement options (fee, statement_amount, duplicate_on_statement,
                         omit_from_statement, returned) say how a settlement is stated
DELETE /scenarios        forget every scenario
GET    /statements?date=YYYY-MM-DD&format=camt053|camt054|csv&currency=EUR
                         the provider account's statement of a day as a file (application/xml
                         or text/csv); date defaults to the day of the latest booking, format
                         to camt053, currency to EUR
POST   /statement-lines  {key, amount, currency, direction? (debit | credit)}: book a line no
                         payout explains, stated on that day's statement → 201
GET    /health
"""

from __future__ import annotations

import json
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from tooling.provider._book import BadPayoutError, Book, PayoutRequest, PayoutStatus
from tooling.provider._scenario import Behaviour, Scenario, ScenarioError
from tooling.provider._settlement import schedule_settlement
from tooling.provider._statement_api import (
    BadStatementRequestError,
    add_statement_line,
    statement_file,
)


class ProviderServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, webhook_secret: str = "") -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.book = Book()
        self.webhook_secret = webhook_secret
        """What the simulator signs its callbacks with, as a real provider does."""


class _Handler(BaseHTTPRequestHandler):
    server: ProviderServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests drive thousands of requests."""

    def do_GET(self) -> None:
        if self.path == "/health":
            self._answer(HTTPStatus.OK, {"status": "ok"})
        elif self.path.startswith("/payouts/"):
            self._status(unquote(self.path.removeprefix("/payouts/")))
        elif urlsplit(self.path).path == "/statements":
            self._statement(urlsplit(self.path).query)
        else:
            self._answer(HTTPStatus.NOT_FOUND, {"error": "no such resource"})

    def do_POST(self) -> None:
        body = self._body()
        if body is _BAD_JSON:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": "the body is not JSON"})
        elif self.path == "/payouts":
            self._payout(body)
        elif self.path == "/validations":
            self._validation(body)
        elif self.path == "/scenarios":
            self._scenario(body)
        elif self.path == "/statement-lines":
            self._statement_line(body)
        else:
            self._answer(HTTPStatus.NOT_FOUND, {"error": "no such resource"})

    def do_DELETE(self) -> None:
        if self.path == "/scenarios":
            self.server.book.clear_scenarios()
            self._answer(HTTPStatus.OK, {"scenarios": 0})
        else:
            self._answer(HTTPStatus.NOT_FOUND, {"error": "no such resource"})

    def _scenario(self, body: Any) -> None:
        try:
            scenario = Scenario.from_json(body)
        except ScenarioError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        self.server.book.add_scenario(scenario)
        self._answer(HTTPStatus.CREATED, {"behaviour": scenario.behaviour.value})

    def _statement(self, query: str) -> None:
        try:
            data, content_type = statement_file(self.server.book, query)
        except BadStatementRequestError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        self._send(HTTPStatus.OK, data, content_type)

    def _statement_line(self, body: Any) -> None:
        try:
            self._answer(*add_statement_line(self.server.book, body))
        except BadStatementRequestError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})

    def _validation(self, body: Any) -> None:
        try:
            request = PayoutRequest.from_json(body)
        except BadPayoutError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        scenario = self.server.book.scenario_for(request.key, request.account)
        if scenario.behaviour is Behaviour.DECLINE:
            refused = {"key": request.key, "reason": scenario.reason}
            self._answer(HTTPStatus.UNPROCESSABLE_ENTITY, refused)
        else:
            self._answer(HTTPStatus.OK, {"key": request.key, "valid": True})

    def _payout(self, body: Any) -> None:
        book = self.server.book
        try:
            request = PayoutRequest.from_json(body)
        except BadPayoutError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        scenario = book.scenario_for(request.key, request.account)
        try:
            scenario.check_amounts(request.currency)
        except ScenarioError as err:
            self._answer(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        if book.rate_limited(request.key, scenario):
            headers = {"Retry-After": str(scenario.retry_after)}
            self._answer(HTTPStatus.TOO_MANY_REQUESTS, {"error": "rate limited"}, headers)
            return
        try:
            payout, new = book.record(request, scenario)
        except KeyError:
            self._answer(HTTPStatus.CONFLICT, {"error": "the key was used for another payout"})
            return
        callbacks = scenario.settlement_callbacks
        if new and payout.status is PayoutStatus.ACCEPTED and callbacks is not None:
            schedule_settlement(
                book,
                request.key,
                callbacks,
                scenario.settle_after_seconds,
                self.server.webhook_secret,
            )
        if book.delayed(request.key, scenario):
            time.sleep(scenario.delay_seconds)
        if payout.status is PayoutStatus.DECLINED:
            self._answer(HTTPStatus.UNPROCESSABLE_ENTITY, payout.to_json())
        else:
            self._answer(HTTPStatus.OK, payout.to_json())

    def _status(self, key: str) -> None:
        found = self.server.book.inquire(key)
        if found is None:
            self._answer(HTTPStatus.NOT_FOUND, {"key": key, "error": "unknown key"})
        elif isinstance(found, str):
            self._answer(HTTPStatus.OK, {"key": key, "status": found})
        else:
            self._answer(HTTPStatus.OK, found.to_json())

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            return _BAD_JSON

    def _answer(
        self, status: HTTPStatus, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        self._send(status, json.dumps(body).encode(), "application/json", headers)

    def _send(
        self,
        status: HTTPStatus,
        data: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (accept-then-timeout): the payout stays recorded


_BAD_JSON = object()
