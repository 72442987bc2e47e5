"""The demo's payment provider: the simulator at FUNDSAGA_PROVIDER_URL, told how to answer each
demo payout, and the webhook receiver at FUNDSAGA_WEBHOOK_URL its callbacks reach.

`make run` starts the simulator (tooling/provider, not in the wheel); the product only speaks
its HTTP API.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sagas.client import FundsagaClient
from sagas.foundations import InvalidRequestError, Settings
from sagas.servers import WebhookSecrets, serve_webhooks

PROBE_TIMEOUT_SECONDS = 2.0
LATE_BY_SECONDS = 2.0
"""How much later than the worker waits an `accept-then-timeout` answer comes."""


class DemoProviderError(Exception):
    """The demo's payouts cannot run; the message says why."""


@dataclass(frozen=True)
class DemoProvider:
    url: str
    answer_timeout: float
    """Seconds the worker waits for the provider's answer (FUNDSAGA_PROVIDER_TIMEOUT)."""

    async def arrange(self, beneficiary: str, rule: Mapping[str, Any]) -> None:
        """Tell the simulator how to answer payouts to `beneficiary`."""
        late = {"delay_seconds": self.answer_timeout + LATE_BY_SECONDS}
        scenario = late | dict(rule) | {"account": beneficiary}
        await asyncio.to_thread(_call, f"{self.url}/scenarios", scenario)


async def open_demo_provider(
    stack: AsyncExitStack, client: FundsagaClient, settings: Settings
) -> DemoProvider:
    """The simulator, once it answers, with the webhook receiver serving until `stack` closes;
    DemoProviderError saying why not."""
    url = settings.provider_url.rstrip("/")
    try:
        await asyncio.to_thread(_call, f"{url}/health")
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise DemoProviderError(
            f"no provider simulator answers at {url} ({_reason(err)}); `make run` starts one"
        ) from None
    webhooks = urlsplit(settings.webhook_url)
    if webhooks.port is None:
        raise DemoProviderError(
            f"FUNDSAGA_WEBHOOK_URL ({settings.webhook_url or 'not set'}) names no port for the "
            "webhook receiver the provider calls back"
        )
    try:
        secrets = WebhookSecrets.configured(settings)
    except InvalidRequestError as err:
        raise DemoProviderError(f"{err.field}: {err.problem}; `make run` makes one") from None
    try:
        await stack.enter_async_context(
            serve_webhooks(
                client,
                secrets,
                webhooks.port,
                webhooks.hostname or "127.0.0.1",
                max_body=settings.webhook_max_body,
            )
        )
    except OSError as err:
        raise DemoProviderError(
            f"the webhook receiver cannot listen at {settings.webhook_url}: {err.strerror}"
        ) from None
    return DemoProvider(url, settings.provider_timeout)


def _call(url: str, body: Mapping[str, Any] | None = None) -> None:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_SECONDS) as answer:
        answer.read()


def _reason(err: Exception) -> str:
    if isinstance(err, urllib.error.URLError) and not isinstance(err, urllib.error.HTTPError):
        return str(err.reason)
    return str(err)
