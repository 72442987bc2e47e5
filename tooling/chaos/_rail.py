"""The payment-provider simulator for a chaos run: started, told how to treat each beneficiary,
and asked afterwards what it holds for each payout."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sagas.foundations import Money, parse_money
from tooling.chaos._catalog import SCENARIOS
from tooling.provider import ProviderProcess


@dataclass(frozen=True)
class RailPayout:
    """What the provider reports for one payout key."""

    status: str
    amount: Money


def start_rail() -> ProviderProcess:
    provider = ProviderProcess()
    provider.start()
    try:
        for beneficiary, rule in SCENARIOS.items():
            _call(provider.url, "POST", "/scenarios", {"account": beneficiary.value, **rule})
    except BaseException:
        provider.stop()
        raise
    return provider


def rail_payout(url: str, key: str) -> RailPayout | None:
    """The provider's record of `key`, None for a key it never saw (GET /payouts/<key>)."""
    try:
        body = _call(url, "GET", f"/payouts/{quote(key, safe='')}")
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return None
        raise
    return RailPayout(str(body["status"]), parse_money(body["amount"], body["currency"]))


def _call(url: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())
