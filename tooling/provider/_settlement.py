"""Settling an accepted payout, and calling the caller back (once, twice, or never)."""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request

from sagas.servers import SIGNATURE_HEADER, signature_header
from tooling.provider._book import Book

log = logging.getLogger("tooling.provider")
CALLBACK_TIMEOUT_SECONDS = 5.0


def schedule_settlement(
    book: Book, key: str, callbacks: int, after_seconds: float, secret: str
) -> None:
    """Settle after `after_seconds`; at once (before the payout is answered) when it is 0, and
    only the callbacks go out later, signed with `secret`."""
    if after_seconds <= 0:
        book.settle(key)
    timer = threading.Timer(after_seconds, _settle, args=(book, key, callbacks, secret))
    timer.daemon = True
    timer.start()


def _settle(book: Book, key: str, callbacks: int, secret: str) -> None:
    payout = book.settle(key)
    url = payout.request.callback_url
    if url is None:
        return
    # One event: a duplicated callback carries the same event id, as a provider's retry does.
    body = json.dumps(payout.to_json() | {"event_id": f"settled-{key}"}).encode()
    for _ in range(callbacks):
        _post(url, body, secret)


def _post(url: str, body: bytes, secret: str) -> None:
    headers = {"Content-Type": "application/json"}
    if secret:
        headers[SIGNATURE_HEADER] = signature_header(secret, body)
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=CALLBACK_TIMEOUT_SECONDS) as answer:
            answer.read()
    except (urllib.error.URLError, OSError) as err:
        log.warning("callback to %s failed: %s", url, err)
