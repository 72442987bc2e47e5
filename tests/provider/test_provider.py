"""The simulator as its own process: idempotency by key and each scenario, over HTTP."""

from __future__ import annotations

import socket
import time
import urllib.request
import uuid
from typing import Any

import pytest

from tests.provider.http import CallbackSink, call


def _key() -> str:
    return f"k-{uuid.uuid4().hex[:12]}"


def _payout(key: str, **extra: Any) -> dict[str, Any]:
    return {"key": key, "account": "acct-1", "amount": "12.50", "currency": "EUR"} | extra


def _scenario(provider: str, **rule: Any) -> None:
    assert call(f"{provider}/scenarios", "POST", rule).status == 201


def test_listens_on_loopback_only(provider: str) -> None:
    assert provider.startswith("http://127.0.0.1:")
    assert call(f"{provider}/health").body == {"status": "ok"}


def test_accept_is_idempotent_by_key(provider: str) -> None:
    key = _key()
    first = call(f"{provider}/payouts", "POST", _payout(key))
    again = call(f"{provider}/payouts", "POST", _payout(key))
    assert first.status == again.status == 200
    assert first.body == again.body
    assert first.body["status"] == "accepted"
    assert call(f"{provider}/payouts/{key}").body["status"] == "accepted"


def test_a_key_is_read_percent_decoded(provider: str) -> None:
    key = f"saga-{_key()}:submit:action"
    call(f"{provider}/payouts", "POST", _payout(key))
    assert call(f"{provider}/payouts/{key.replace(':', '%3A')}").body["key"] == key


def test_same_key_other_body_is_a_conflict(provider: str) -> None:
    key = _key()
    call(f"{provider}/payouts", "POST", _payout(key))
    assert call(f"{provider}/payouts", "POST", _payout(key, amount="13.00")).status == 409


def test_unknown_key_is_404(provider: str) -> None:
    assert call(f"{provider}/payouts/{_key()}").status == 404


@pytest.mark.parametrize(
    "body",
    [
        {"key": "k", "account": "a", "amount": "1.5e", "currency": "EUR"},
        {"key": "k", "account": "a", "amount": "-1", "currency": "EUR"},
        {"key": "k", "account": "a", "amount": 1.5, "currency": "EUR"},
        {"key": "k", "account": "a", "currency": "EUR"},
        ["not", "an", "object"],
    ],
)
def test_bad_payouts_are_400(provider: str, body: Any) -> None:
    assert call(f"{provider}/payouts", "POST", body).status == 400


def test_bad_json_is_400(provider: str) -> None:
    request = urllib.request.Request(f"{provider}/payouts", data=b"{nope", method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=5)
    with raised.value as refused:
        assert refused.code == 400


def test_bad_scenario_is_400(provider: str) -> None:
    assert call(f"{provider}/scenarios", "POST", {"key": "x", "behaviour": "fly"}).status == 400
    assert call(f"{provider}/scenarios", "POST", {"behaviour": "accept"}).status == 400


def test_decline_is_422_with_a_reason_and_stays_declined(provider: str) -> None:
    key = _key()
    _scenario(provider, key=key, behaviour="decline", reason="beneficiary account closed")
    first = call(f"{provider}/payouts", "POST", _payout(key))
    assert first.status == 422
    assert first.body["reason"] == "beneficiary account closed"
    assert call(f"{provider}/payouts", "POST", _payout(key)).body == first.body
    assert call(f"{provider}/payouts/{key}").body["status"] == "declined"


def test_rate_limit_answers_429_with_retry_after_then_accepts(provider: str) -> None:
    key = _key()
    _scenario(provider, key=key, behaviour="rate-limit", retry_after=3, limited=2)
    for _ in range(2):
        limited = call(f"{provider}/payouts", "POST", _payout(key))
        assert limited.status == 429
        assert limited.headers["Retry-After"] == "3"
    assert call(f"{provider}/payouts/{key}").status == 404
    assert call(f"{provider}/payouts", "POST", _payout(key)).body["status"] == "accepted"


def test_accept_then_timeout_records_before_answering_late(provider: str) -> None:
    key = _key()
    _scenario(provider, key=key, behaviour="accept-then-timeout", delay_seconds=2)
    with pytest.raises((TimeoutError, socket.timeout, urllib.error.URLError)):
        call(f"{provider}/payouts", "POST", _payout(key), timeout=0.3)
    assert call(f"{provider}/payouts/{key}").body["status"] == "accepted"
    started = time.monotonic()
    assert call(f"{provider}/payouts", "POST", _payout(key)).body["status"] == "accepted"
    assert time.monotonic() - started < 1


@pytest.mark.parametrize("callbacks", [0, 1, 2])
def test_settle_callback_once_twice_or_never(
    provider: str, sink: tuple[str, CallbackSink], callbacks: int
) -> None:
    url, received = sink
    key = _key()
    _scenario(provider, key=key, behaviour="settle-callback", callbacks=callbacks)
    assert call(f"{provider}/payouts", "POST", _payout(key, callback_url=url)).status == 200
    deadline = time.monotonic() + 5
    while call(f"{provider}/payouts/{key}").body["status"] != "settled":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    got = received.wait_for(callbacks, timeout=5 if callbacks else 0.3)
    assert len(got) == callbacks
    assert all(body["key"] == key and body["status"] == "settled" for body in got)


def test_account_pattern_and_unknown_inquiries(provider: str) -> None:
    key = _key()
    _scenario(provider, account="acct-unsure-*", behaviour="accept", unknown_inquiries=2)
    call(f"{provider}/payouts", "POST", _payout(key, account="acct-unsure-7"))
    answers = [call(f"{provider}/payouts/{key}").body["status"] for _ in range(3)]
    assert answers == ["unknown", "unknown", "accepted"]


def test_validation_declines_by_scenario_and_records_nothing(provider: str) -> None:
    key = _key()
    _scenario(provider, key=key, behaviour="decline", reason="sanctioned beneficiary")
    refused = call(f"{provider}/validations", "POST", _payout(key))
    assert (refused.status, refused.body["reason"]) == (422, "sanctioned beneficiary")
    assert call(f"{provider}/validations", "POST", _payout(_key())).body["valid"] is True
    assert call(f"{provider}/payouts/{key}").status == 404


def test_settling_at_once_is_settled_before_the_answer(provider: str) -> None:
    key = _key()
    _scenario(provider, key=key, behaviour="settle-callback", settle_after_seconds=0)
    call(f"{provider}/payouts", "POST", _payout(key))
    assert call(f"{provider}/payouts/{key}").body["status"] == "settled"
