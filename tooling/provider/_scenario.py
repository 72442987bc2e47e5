"""What the simulator does with a payout: chosen per key or account pattern by the test or demo."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sagas.foundations import InvalidRequestError, parse_money

_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")
_REASON = re.compile(r"[A-Z0-9]{1,4}")


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
    fee: str | None = None
    """What the provider charges when it settles (decimal text), stated with the entry."""
    statement_amount: str | None = None
    """Settle, but state this other amount (decimal text) on the statement."""
    duplicate_on_statement: bool = False
    """State the settlement twice, the second line under a new AcctSvcrRef."""
    omit_from_statement: bool = False
    """Settle, but leave the settlement off the statement."""
    returned: str | None = None
    """A return reason code (AC04): after settling, the statement also states the money coming
    back, a CRDT return line with this reason and the same EndToEndId."""

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
        scenario._check_statement_options()
        return scenario

    def _check_statement_options(self) -> None:
        for name in ("fee", "statement_amount"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not _DECIMAL.fullmatch(value)):
                raise ScenarioError(f"{name} must be decimal text such as '0.35'")
        for name in ("duplicate_on_statement", "omit_from_statement"):
            if not isinstance(getattr(self, name), bool):
                raise ScenarioError(f"{name} must be true or false")
        if self.returned is not None and not (
            isinstance(self.returned, str) and _REASON.fullmatch(self.returned)
        ):
            raise ScenarioError("returned must be a return reason code such as AC04")

    def check_amounts(self, currency: str) -> None:
        """Refuse a fee or stated amount with more decimals than the payout's currency has."""
        try:
            if self.fee is not None:
                parse_money(self.fee, currency, field="fee", allow_zero=True)
            if self.statement_amount is not None:
                parse_money(self.statement_amount, currency, field="statement_amount")
        except InvalidRequestError as err:
            raise ScenarioError(f"the scenario's {err}") from err

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
