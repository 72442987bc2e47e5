"""Fake transfer activities registered under the real names: they record and fail on demand."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from temporalio import activity

from activities.operator_identity import OperatorIdentityActivity
from sagas import AccountFrozenError, FundsagaError, TransientError
from sagas.engine import AUDIT_ACTIVITY, AuditCall, to_application_error
from sagas.ledger import TokenSpend
from sagas.testing import dev_identity
from sagas.transfer import TRANSFER_SAGA, TransferCall, TransferState

ATTEMPT_SLACK_S = 3.0
"""How much longer than its backoff a gap between two attempts' starts may be."""
FailWhen = Callable[[int], bool]
RaiseWhen = Callable[[int], FundsagaError | None]
"""The error an attempt (by its number) fails with, or None to succeed."""


@dataclass(frozen=True)
class Attempt:
    activity_type: str
    attempt: int
    started_at: datetime


@dataclass
class FakeSteps:
    """Every action and compensation of TRANSFER_SAGA, recording each attempt."""

    attempts: list[Attempt] = field(default_factory=list)
    business: set[str] = field(default_factory=set)
    transient: dict[str, FailWhen] = field(default_factory=dict)
    raising: dict[str, RaiseWhen] = field(default_factory=dict)
    gates: dict[str, asyncio.Event] = field(default_factory=dict)
    audit: list[AuditCall] = field(default_factory=list)
    audit_down: bool = False
    audit_attempts: int = 0
    spent: dict[tuple[str, str], TokenSpend] = field(default_factory=dict)

    def types(self) -> list[str]:
        return [a.activity_type for a in self.attempts]

    def of(self, activity_type: str) -> list[Attempt]:
        return [a for a in self.attempts if a.activity_type == activity_type]

    def backed_off(self, activity_type: str, backoffs_s: Sequence[float]) -> bool:
        """Whether the activity's attempts started `backoffs_s` apart: each gap is the backoff
        plus the attempt's own run, which takes real time on a loaded machine."""
        started = [a.started_at for a in self.of(activity_type)]
        gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(started)]
        return len(gaps) == len(backoffs_s) and all(
            wait <= gap < wait + ATTEMPT_SLACK_S for gap, wait in zip(gaps, backoffs_s, strict=True)
        )

    def all(self) -> list[Callable[..., Any]]:
        names = [s.action for s in TRANSFER_SAGA.steps]
        names += [s.compensation for s in TRANSFER_SAGA.steps if s.compensation]
        identity = OperatorIdentityActivity(dev_identity().check(), self._spend)  # the real check
        return [*(self._activity(name) for name in names), self._audit(), identity.verify]

    def _spend(self, spend: TokenSpend) -> TokenSpend | None:
        """The ledger's token memory, in memory: the first use of a token id takes it."""
        earlier = self.spent.setdefault((spend.issuer, spend.token_id), spend)
        return None if earlier == spend else earlier

    def _audit(self) -> Callable[..., Any]:
        @activity.defn(name=AUDIT_ACTIVITY)
        async def record(call: AuditCall) -> int:
            self.audit_attempts += 1
            if self.audit_down:
                raise RuntimeError("audit store unreachable")
            if call.dedupe_key not in {r.dedupe_key for r in self.audit}:
                self.audit.append(call)
            return len(self.audit)

        return record

    def _activity(self, name: str) -> Callable[..., Any]:
        async def run(call: TransferCall) -> TransferState:
            info = activity.info()
            attempt = call.earlier_attempts + info.attempt  # runs after a wait count on
            self.attempts.append(Attempt(name, attempt, info.started_time))
            gate = self.gates.get(name)
            if gate is not None:
                await gate.wait()
            error: FundsagaError | None = None
            if name in self.business:
                error = AccountFrozenError(f"fake business error in {name}")
            elif name in self.transient and self.transient[name](attempt):
                error = TransientError(f"fake transient error in {name}")
            elif name in self.raising:
                error = self.raising[name](attempt)
            if error is not None:
                raise to_application_error(error, info.attempt, call)
            return call.state.model_copy(update={"hold_key": call.state.hold_key or name})

        return activity.defn(name=name)(run)
