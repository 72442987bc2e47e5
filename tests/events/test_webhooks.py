"""The webhook receiver, in process against the time-skipping server, as the provider and as an
attacker who reaches it without the provider's secret: only a signed, fresh, declared callback
reaches its saga, once; everything else is refused before the saga's history is touched."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from temporalio.api.enums.v1 import EventType

from sagas import EventWait, SagaStatus
from sagas.client import FundsagaClient, SagaHandle
from sagas.servers import SIGNATURE_HEADER, WebhookSecrets, serve_webhooks, signature_header
from tests.events.saga import ACTIONS_RUN
from tests.provider.http import post_bytes

SECRET = secrets.token_urlsafe(32)
MAX_BODY = 65_536


@pytest.fixture
async def receiver(client: FundsagaClient) -> AsyncIterator[str]:
    secrets_by_type = WebhookSecrets({"test-settle": SECRET})
    async with serve_webhooks(client, secrets_by_type, max_body=MAX_BODY) as server:
        yield server.url


async def post(
    url: str,
    body: object,
    *,
    secret: str | None = SECRET,
    skew: int = 0,
    headers: dict[str, str] | None = None,
) -> int:
    """POST `body` (JSON unless bytes) signed with `secret` (None: unsigned), its signature
    stamped `skew` seconds from now (read as it is sent, not when the tests were collected)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Length": str(len(data))}
    if secret is not None:
        stamp = int(time.time()) + skew if skew else None
        sent[SIGNATURE_HEADER] = signature_header(secret, data, stamp)
    sent |= headers or {}
    return await asyncio.to_thread(post_bytes, url, data, sent)


async def signals(saga: SagaHandle) -> int:
    history = await saga.workflow.fetch_history()
    kind = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    return sum(event.event_type == kind for event in history.events)


async def started(client: FundsagaClient) -> tuple[str, SagaHandle]:
    key = f"s-{uuid.uuid4().hex[:10]}"
    await client.start("test-settle", {"idempotency_key": key})
    return key, client.saga("test-settle", key)


def settled(reference: str, event_id: str | None = None) -> dict[str, str]:
    return {"reference": reference, "event_id": event_id or f"ev-{uuid.uuid4().hex}"}


async def ends_normally(receiver: str, key: str, saga: SagaHandle) -> bool:
    """The provider's own callback still settles the saga after an attack (and leaves no saga
    waiting on the session's time-skipping server, where it would hold time still)."""
    assert await post(f"{receiver}/events/test-settle/{key}/settled", settled("w-1")) == 202
    return (await saga.outcome()).status is SagaStatus.COMPLETED


async def test_a_signed_callback_is_signalled_once_and_a_replay_is_not(
    client: FundsagaClient, receiver: str
) -> None:
    key, saga = await started(client)
    url = f"{receiver}/events/test-settle/{key}/settled"
    body = settled("w-1")

    assert await post(url, body) == 202
    assert await post(url, body) == 200  # the same event id again: nothing sent

    assert (await saga.outcome()).status is SagaStatus.COMPLETED
    assert [s for i, s in ACTIONS_RUN if i == saga.saga_id] == ["w-1"]
    assert [e.result for e in (await saga.view()).events] == [EventWait.RECEIVED]
    assert await signals(saga) == 1


@pytest.mark.parametrize(
    ("attack", "status"),
    [
        ({"secret": None}, 401),
        ({"secret": secrets.token_urlsafe(32)}, 401),
        ({"skew": -600}, 401),
        ({"skew": 600}, 401),
        ({"headers": {SIGNATURE_HEADER: "t=abc,v1=00"}}, 400),
        ({"headers": {SIGNATURE_HEADER: f"t=\u00b2,v1={'0' * 64}"}}, 400),
        ({"headers": {SIGNATURE_HEADER: f"t={'9' * 5000},v1={'0' * 64}"}}, 400),
        ({"headers": {SIGNATURE_HEADER: "t=1700000000,v1=zz"}}, 400),
        ({"headers": {"Content-Length": "abc"}}, 400),
        ({"headers": {"Content-Length": "\u00b2"}}, 400),
    ],
    ids=[
        "unsigned",
        "wrong-secret",
        "stale",
        "from-the-future",
        "malformed",
        "superscript-digit",
        "5000-digit-stamp",
        "not-hex",
        "bad-length",
        "superscript-length",
    ],
)
async def test_a_callback_without_a_valid_signature_never_reaches_the_saga(
    client: FundsagaClient, receiver: str, attack: dict[str, object], status: int
) -> None:
    key, saga = await started(client)

    refused = await post(f"{receiver}/events/test-settle/{key}/settled", settled("x"), **attack)  # type: ignore[arg-type]

    assert refused == status
    assert (await saga.view()).status is SagaStatus.RUNNING
    assert await signals(saga) == 0
    assert await ends_normally(receiver, key, saga)


async def test_a_body_changed_after_signing_is_refused(
    client: FundsagaClient, receiver: str
) -> None:
    key, saga = await started(client)
    signed = json.dumps(settled("w-1")).encode()
    changed = signed.replace(b"w-1", b"w-9")

    status = await post(
        f"{receiver}/events/test-settle/{key}/settled",
        changed,
        headers={SIGNATURE_HEADER: signature_header(SECRET, signed)},
    )

    assert status == 401
    assert await signals(saga) == 0
    assert await ends_normally(receiver, key, saga)


async def test_an_event_no_step_waits_for_is_refused_without_a_signal(
    client: FundsagaClient, receiver: str
) -> None:
    key, saga = await started(client)

    assert await post(f"{receiver}/events/test-settle/{key}/refunded", settled("x", "e-1")) == 409
    assert await signals(saga) == 0
    # A refused event id is not remembered: the provider's corrected callback gets through.
    assert await post(f"{receiver}/events/test-settle/{key}/settled", settled("x", "e-1")) == 202
    assert (await saga.outcome()).status is SagaStatus.COMPLETED


async def test_a_flood_of_large_bodies_is_refused_unread_and_the_saga_ends_normally(
    client: FundsagaClient, receiver: str
) -> None:
    """35 bodies of 1.5 MB once pushed a payout's history past Temporal's limit."""
    key, saga = await started(client)
    url = f"{receiver}/events/test-settle/{key}/settled"
    large = json.dumps(settled("x" * 1_500_000)).encode()

    answers = await asyncio.gather(*(post(url, large) for _ in range(35)))
    assert set(answers) == {413}
    assert await signals(saga) == 0
    assert await ends_normally(receiver, key, saga)


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/events/no-such-type/k/settled", settled("x"), 401),
        ("/events/test-settle/never-started/settled", settled("x"), 404),
        ("/events/test-settle/k", settled("x"), 404),
        ("/events/test-settle/k/settled", b"{not json", 400),
        ("/events/test-settle/k/settled", [1, 2], 400),
        ("/events/test-settle/k/settled", {"reference": "x"}, 400),
        ("/events/test-settle/k/settled", b'{"event_id":"e","event_id":"f"}', 400),
    ],
    ids=["unknown-type", "unknown-saga", "no-event", "no-json", "no-object", "no-id", "dup-key"],
)
async def test_what_names_no_saga_or_is_no_signed_json_object_is_refused(
    receiver: str, path: str, body: object, status: int
) -> None:
    assert await post(f"{receiver}{path}", body) == status
