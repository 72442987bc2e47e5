"""What the simulator does with a payout: chosen per key or account pattern by the test or demo."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Behaviour(StrEnum):
    ACCEPT = "accept"  # accept and stay accepted
    DECLINE = "decline"  # 422 with a reason; recorded as declined
    RATE_LIMIT = "rate-limit"  # 429 with Retry-After for the first `limited` requests, then accept
    ACCEPT_THEN_TIMEOUT = "accept-then-timeout"  # record, answer after `delay_seconds`
    SETTLE_CALLBACK = "settle-callback"  # accept, settle, then POST the callback `callbacks` times


class ScenarioError(ValueError):
    """A scenario the simulator cannot follow; answered with 400."""


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """One rule: the first rule (newest first) whose key or account pattern matches applies."""

    key: str | None = None
    account: str | None = None
    behaviour: Behaviour = Behaviour.ACCEPT
    reason: str = "declined by the simulated provider"
    retry_after: int = 1
    limited: int = 1
    delay_seconds: float = 5.0
    callbacks: int | None = None
    """How many times the settlement callback is sent: 0 lost, 1 once, 2 duplicated. None:
    never settle, except for settle-callback, which sends it once."""
    settle_after_seconds: float = 0.05
    """0: settled before the payout is answered (an inquiry finds it settled at once)."""
    unknown_inquiries: int = 0
    """How many status inquiries answer `unknown` before the real status."""

    @classmethod
    def from_json(cls, body: Any) -> Scenario:
        if not isinstance(body, dict):
            raise ScenarioError("a scenario is a JSON object")
        try:
            scenario = cls(**body)
            scenario = cls(**{**body, "behaviour": Behaviour(scenario.behaviour)})
        except (TypeError, ValueError) as err:
            raise ScenarioError(str(err)) from err
        if (scenario.key is None) == (scenario.account is None):
            raise ScenarioError("a scenario names exactly one of key or account")
        return scenario

    def matches(self, key: str, account: str) -> bool:
        if self.key is not None:
            return fnmatch.fnmatchcase(key, self.key)
        return self.account is not None and fnmatch.fnmatchcase(account, self.account)

    @property
    def settlement_callbacks(self) -> int | None:
        if self.callbacks is None and self.behaviour is Behaviour.SETTLE_CALLBACK:
            return 1
        return self.callbacks


DEFAULT = Scenario(key="*")
