"""Fault injection for demos, tests and chaos runs, configured by FUNDSAGA_FAULTS on a worker.

Format: rules separated by ';', each ``STEP[.PHASE]=KIND[*TIMES][@ACCOUNT]`` where PHASE is
``action`` (default) or ``compensation``; KIND is ``business`` (non-retryable error before the
effect), ``transient`` (retryable error before the effect) or ``timeout`` (the effect commits,
then the attempt fails as timed out); TIMES limits the rule to the first TIMES attempts (default:
every attempt); ACCOUNT limits it to sagas that touch that account.

Example: ``credit=transient*3;settle.compensation=timeout@acc-b``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from sagas.engine._definition import Phase
from sagas.foundations import (
    AccountFrozenError,
    InvalidRequestError,
    StepTimeoutError,
    TransientError,
)

ENV_VAR = "FUNDSAGA_FAULTS"
_RULE = re.compile(
    r"(?P<step>[\w-]+)(?:\.(?P<phase>action|compensation))?=(?P<kind>business|transient|timeout)"
    r"(?:\*(?P<times>[1-9][0-9]*))?(?:@(?P<account>[\w.:@-]+))?"
)


class FaultKind(StrEnum):
    BUSINESS = "business"  # a non-retryable business error before the effect
    TRANSIENT = "transient"  # a retryable error before the effect
    TIMEOUT = "timeout"  # the effect commits, then the attempt fails as timed out


@dataclass(frozen=True, slots=True)
class FaultRule:
    step: str
    phase: Phase
    kind: FaultKind
    times: int | None
    account: str | None

    def matches(self, step: str, phase: str, attempt: int, accounts: frozenset[str]) -> bool:
        return (
            self.step == step
            and self.phase == phase
            and (self.times is None or attempt <= self.times)
            and (self.account is None or self.account in accounts)
        )


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """The parsed rules; an empty plan injects nothing."""

    rules: tuple[FaultRule, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def before_effect(self, step: str, phase: str, attempt: int, accounts: frozenset[str]) -> None:
        for rule in self._matching(step, phase, attempt, accounts):
            if rule.kind is FaultKind.BUSINESS:
                raise AccountFrozenError(f"injected business error in {step}.{phase}")
            if rule.kind is FaultKind.TRANSIENT:
                raise TransientError(
                    f"injected transient error in {step}.{phase} (attempt {attempt})"
                )

    def after_effect(self, step: str, phase: str, attempt: int, accounts: frozenset[str]) -> None:
        for rule in self._matching(step, phase, attempt, accounts):
            if rule.kind is FaultKind.TIMEOUT:
                raise StepTimeoutError(
                    f"injected timeout in {step}.{phase} after its effect committed "
                    f"(attempt {attempt})"
                )

    def _matching(
        self, step: str, phase: str, attempt: int, accounts: frozenset[str]
    ) -> list[FaultRule]:
        return [rule for rule in self.rules if rule.matches(step, phase, attempt, accounts)]


def parse_faults(spec: str) -> FaultPlan:
    """Parse a FUNDSAGA_FAULTS value; refuse a malformed rule, naming it."""
    rules: list[FaultRule] = []
    for raw in spec.split(";"):
        text = raw.strip()
        if not text:
            continue
        match = _RULE.fullmatch(text)
        if match is None:
            raise InvalidRequestError(
                ENV_VAR, f"rule {text!r} is not STEP[.PHASE]=KIND[*TIMES][@ACCOUNT]"
            )
        times = match.group("times")
        rules.append(
            FaultRule(
                step=match.group("step"),
                phase=Phase(match.group("phase") or Phase.ACTION),
                kind=FaultKind(match.group("kind")),
                times=int(times) if times else None,
                account=match.group("account"),
            )
        )
    return FaultPlan(tuple(rules))
