"""The webhook receiver, in process against the time-skipping server: a callback is signalled
to its saga; what names no saga is 404, a body that is not a JSON object 400."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator

import pytest

from sagas import EventWait, SagaStatus
from sagas.client import FundsagaClient
from sagas.servers import serve_webhooks
from tests.events.saga import ACTIONS_RUN


@pytest.fixture
async def receiver(client: FundsagaClient) -> AsyncIterator[str]:
    async with serve_webhooks(client) as server:
        yield server.url


def _post(url: str, data: bytes) -> int:
    request = urllib.request.Request(url, data=data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        with err:
            return err.code


async def post(url: str, body: object) -> int:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await asyncio.to_thread(_post, url, data)


async def test_a_callback_is_signalled_to_its_saga(
    client: FundsagaClient,
    receiver: str,
) -> None:
    key = f"s-{uuid.uuid4().hex[:10]}"
    await client.start("test-settle", {"idempotency_key": key})
    saga = client.saga("test-settle", key)

    assert await post(f"{receiver}/events/test-settle/{key}/settled", {"reference": "w-1"}) == 202
    assert await post(f"{receiver}/events/test-settle/{key}/settled", {"reference": "w-2"}) == 202

    assert (await saga.outcome()).status is SagaStatus.COMPLETED
    assert [s for i, s in ACTIONS_RUN if i == saga.saga_id] == ["w-1"]
    assert [e.result for e in (await saga.view()).events] == [EventWait.RECEIVED]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/events/no-such-type/k/settled", {}, 404),
        ("/events/test-settle/never-started/settled", {}, 404),
        ("/events/test-settle/k", {}, 404),
        ("/events/test-settle/k/settled", b"{not json", 400),
        ("/events/test-settle/k/settled", [1, 2], 400),
    ],
)
async def test_what_names_no_saga_or_is_no_json_object_is_refused(
    receiver: str, path: str, body: object, status: int
) -> None:
    assert await post(f"{receiver}{path}", body) == status
