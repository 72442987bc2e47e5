"""Fault injection for demos, tests and chaos runs, configured by FUNDSAGA_FAULTS on a worker.

Format: rules separated by ';', each ``[SAGA_TYPE/]STEP[.PHASE]=KIND[(ERROR)][*TIMES][@ACCOUNT]``
where SAGA_TYPE limits the rule to one saga type (default: every type with that step); PHASE is
``action`` (default) or ``compensation``; KIND is ``business`` (non-retryable error before the
effect), ``transient`` (retryable error before the effect) or ``timeout`` (the effect commits,
then the attempt fails as timed out); ERROR names the class raised, a BusinessError subclass for
``business``, a TransientError subclass for ``transient``; TIMES limits the rule to the first
TIMES attempts (default: every attempt); ACCOUNT limits it to sagas that touch that account.

Example: ``credit=transient*3;escrow/hold.compensation=business(AccountClosedError)@acc-b``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from sagas.engine._status import Phase
from sagas.foundations import (
    AccountFrozenError,
    BusinessError,
    FundsagaError,
    InvalidRequestError,
    StepTimeoutError,
    TransientError,
    error_class_by_name,
)

ENV_VAR = "FUNDSAGA_FAULTS"
GRAMMAR = "[SAGA_TYPE/]STEP[.PHASE]=KIND[(ERROR)][*TIMES][@ACCOUNT]"
_RULE = re.compile(
    r"(?:(?P<saga_type>[A-Za-z0-9_.-]+)/)?(?P<step>[\w-]+)(?:\.(?P<phase>action|compensation))?"
    r"=(?P<kind>business|transient|timeout)(?:\((?P<error>[A-Za-z_]\w*)\))?"
    r"(?:\*(?P<times>[1-9][0-9]*))?(?:@(?P<account>[\w.:@-]+))?"
)


class FaultKind(StrEnum):
    BUSINESS = "business"  # a non-retryable business error before the effect
    TRANSIENT = "transient"  # a retryable error before the effect
    TIMEOUT = "timeout"  # the effect commits, then the attempt fails as timed out


_DEFAULT_ERROR: dict[FaultKind, type[FundsagaError]] = {
    FaultKind.BUSINESS: AccountFrozenError,
    FaultKind.TRANSIENT: TransientError,
    FaultKind.TIMEOUT: StepTimeoutError,
}
_ERROR_BASE: dict[FaultKind, type[FundsagaError]] = {
    FaultKind.BUSINESS: BusinessError,
    FaultKind.TRANSIENT: TransientError,
}


@dataclass(frozen=True, slots=True)
class FaultRule:
    step: str
    phase: Phase
    kind: FaultKind
    times: int | None
    account: str | None
    saga_type: str | None = None
    """Only sagas of this type; None: every type with a step of that name."""
    error: type[FundsagaError] | None = None
    """The class raised; None: the kind's default (AccountFrozenError, TransientError,
    StepTimeoutError)."""

    @property
    def error_class(self) -> type[FundsagaError]:
        return self.error or _DEFAULT_ERROR[self.kind]

    def matches(
        self, saga_type: str, step: str, phase: Phase, attempt: int, accounts: frozenset[str]
    ) -> bool:
        return (
            self.step == step
            and self.phase == phase
            and (self.saga_type is None or self.saga_type == saga_type)
            and (self.times is None or attempt <= self.times)
            and (self.account is None or self.account in accounts)
        )

    def describe(self) -> str:
        """The rule as the worker's start-up warning lists it, every default spelled out."""
        scope = f"{self.saga_type}/" if self.saga_type else ""
        return (
            f"{scope}{self.step}.{self.phase}={self.kind.value}({self.error_class.__name__})"
            f"*{self.times or 'always'}@{self.account or 'any'}"
        )


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """The parsed rules; an empty plan injects nothing."""

    rules: tuple[FaultRule, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def before_effect(
        self, saga_type: str, step: str, phase: Phase, attempt: int, accounts: frozenset[str]
    ) -> None:
        for rule in self._matching(saga_type, step, phase, attempt, accounts):
            if rule.kind is FaultKind.BUSINESS:
                raise rule.error_class(f"injected business error in {step}.{phase}")
            if rule.kind is FaultKind.TRANSIENT:
                raise rule.error_class(
                    f"injected transient error in {step}.{phase} (attempt {attempt})"
                )

    def after_effect(
        self, saga_type: str, step: str, phase: Phase, attempt: int, accounts: frozenset[str]
    ) -> None:
        for rule in self._matching(saga_type, step, phase, attempt, accounts):
            if rule.kind is FaultKind.TIMEOUT:
                raise rule.error_class(
                    f"injected timeout in {step}.{phase} after its effect committed "
                    f"(attempt {attempt})"
                )

    def _matching(
        self, saga_type: str, step: str, phase: Phase, attempt: int, accounts: frozenset[str]
    ) -> list[FaultRule]:
        return [
            rule for rule in self.rules if rule.matches(saga_type, step, phase, attempt, accounts)
        ]


def parse_faults(spec: str) -> FaultPlan:
    """Parse a FUNDSAGA_FAULTS value; refuse a malformed rule, naming it.

    An ERROR class must be defined when this runs: parse after the saga modules are imported.
    """
    rules: list[FaultRule] = []
    for raw in spec.split(";"):
        text = raw.strip()
        if text:
            rules.append(_parse_rule(text))
    return FaultPlan(tuple(rules))


def _parse_rule(text: str) -> FaultRule:
    match = _RULE.fullmatch(text)
    if match is None:
        raise InvalidRequestError(ENV_VAR, f"rule {text!r} is not {GRAMMAR}")
    kind = FaultKind(match.group("kind"))
    times = match.group("times")
    return FaultRule(
        step=match.group("step"),
        phase=Phase(match.group("phase") or Phase.ACTION),
        kind=kind,
        times=int(times) if times else None,
        account=match.group("account"),
        saga_type=match.group("saga_type"),
        error=_error_class(kind, match.group("error"), text),
    )


def _error_class(kind: FaultKind, name: str | None, text: str) -> type[FundsagaError] | None:
    if name is None:
        return None
    base = _ERROR_BASE.get(kind)
    if base is None:
        raise InvalidRequestError(ENV_VAR, f"rule {text!r}: {kind.value} takes no error class")
    cls = error_class_by_name(name)
    if cls is None or not issubclass(cls, base):
        raise InvalidRequestError(
            ENV_VAR,
            f"rule {text!r}: {name!r} is not a known {base.__name__} subclass "
            "(its module must be imported first: list it in FUNDSAGA_SAGA_MODULES)",
        )
    try:
        cls(f"probe of rule {text!r}")
    except TypeError as err:
        raise InvalidRequestError(
            ENV_VAR, f"rule {text!r}: {name} cannot be raised with a message alone ({err})"
        ) from None
    return cls
