"""Saga definitions as data: named steps, each with an action, a compensation and retry specs."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from pydantic import BaseModel, Field, JsonValue, field_validator

from sagas.engine._rail import RailEffect, action_key_of
from sagas.engine._retry import RetrySpec
from sagas.engine._snapshot import RunClaim, Snapshot
from sagas.engine._status import Phase
from sagas.foundations import InvalidRequestError, Money, canonical_json, sha256_hex

IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")
MAX_DEADLINE_SECONDS = 30 * 24 * 3600


def saga_id(saga_type: str, idempotency_key: str) -> str:
    """The workflow id of a saga: `<saga type>-<caller's key>`."""
    return f"{saga_type}-{idempotency_key}"


class SagaRequest(BaseModel):
    """Base of every saga's request: what the engine itself needs of it."""

    idempotency_key: str = Field(description="The caller's key; the saga id is derived from it.")
    deadline_seconds: int = Field(
        default=24 * 3600, description="Compensate if not completed this long after the start."
    )

    @field_validator("idempotency_key")
    @classmethod
    def _check_key(cls, value: str) -> str:
        if not IDEMPOTENCY_KEY.fullmatch(value):
            raise InvalidRequestError(
                "idempotency_key", "must be 1-128 characters of letters, digits and . _ : @ -"
            )
        return value

    @field_validator("deadline_seconds")
    @classmethod
    def _check_deadline(cls, value: int) -> int:
        if not 1 <= value <= MAX_DEADLINE_SECONDS:
            raise InvalidRequestError("deadline_seconds", f"must be in [1, {MAX_DEADLINE_SECONDS}]")
        return value

    def account_fields(self) -> dict[str, str]:
        """Field name → ledger account id, for every account the saga's actions move money on.

        Before anything starts, the client refuses, naming the field, an account that is
        unknown, frozen or closed (every action of the ledger refuses those; compensations do
        not); a step that refuses one of these accounts names the field too. Fault rules can be
        limited to one account.
        """
        return {}

    def account_currencies(self) -> dict[str, str]:
        """Field name (of `account_fields`) → the currency the request moves on its account.

        Declare one for every account field: the client refuses the request, naming the field,
        when the account holds another currency. An FX request names two.
        """
        return {}

    def amounts(self) -> dict[str, Money]:
        """Field name → the money it asks for: shown in the Temporal UI's current details and
        by `sagas list` and `sagas view` (with the definition's `parties` and `reference`)."""
        return {}

    def touched_accounts(self) -> frozenset[str]:
        """Accounts the saga moves money on."""
        return frozenset(self.account_fields().values())

    def fingerprint(self) -> str:
        """A stable hash of what was asked, to tell a retry from a conflicting reuse of the key."""
        return sha256_hex(canonical_json(self.model_dump(mode="json")))

    def summary(self) -> str:
        """One line for the Temporal UI."""
        return f"saga {self.idempotency_key}"


RequestT = TypeVar("RequestT", bound=SagaRequest)
StateT = TypeVar("StateT", bound=BaseModel)


class StepCall(BaseModel, Generic[RequestT, StateT]):
    """The one input of every step activity, action or compensation."""

    saga_id: str
    saga_type: str
    step_index: int
    step_name: str
    phase: Phase
    run_chain: str
    """The workflow's first execution run id: the chain whose claim the step's effect needs."""
    request: RequestT
    state: StateT
    snapshot: Snapshot | None = None
    retry: RetrySpec | None = None
    """The spec this phase of the step runs with, as resolved when the saga started: the step's
    activity decides each class's wait and last attempt by it."""
    event: dict[str, JsonValue] | None = None
    """The payload of the event the step awaits (see StepDefinition.awaits); None when the step
    awaits none, or its wait timed out."""
    earlier_attempts: int = 0
    """Attempts of this phase in earlier runs of its activity: a saga that waited out a fault of
    the infrastructure runs it again, and the attempts count on."""
    scheduled_at: datetime | None = None
    """Workflow time (Temporal's) when the saga scheduled this call: the time an activity
    compares an expiry against, never its worker's own clock. None only in a call built
    outside a workflow."""

    def claim(self) -> RunClaim:
        return RunClaim(saga_id=self.saga_id, saga_type=self.saga_type, run_chain=self.run_chain)

    def effect_key(self, suffix: str = "") -> str:
        """The idempotency key of this step's effect: (saga id, step, action or compensation)."""
        base = f"{self.saga_id}:{self.step_name}:{self.phase.value}"
        return f"{base}:{suffix}" if suffix else base

    def action_key(self, step_name: str | None = None, suffix: str = "") -> str:
        """The key an action used, so its compensation can find (or tombstone) the effect."""
        base = action_key_of(self.saga_id, step_name or self.step_name)
        return f"{base}:{suffix}" if suffix else base


@dataclass(frozen=True, kw_only=True)
class StepDefinition(Generic[RequestT]):
    """One step of a saga."""

    name: str
    """Unique within the saga; part of every idempotency key the step writes."""
    action: str
    """Activity type name of the action."""
    compensation: str | None
    """Activity type name of the compensation; None when the step has nothing to undo."""
    action_retry: RetrySpec
    compensation_retry: RetrySpec
    timeout: timedelta = timedelta(seconds=10)
    """Start-to-close timeout of one attempt."""
    describe_action: Callable[[RequestT], str]
    """Summary shown on the action's activity in the Temporal UI."""
    describe_compensation: Callable[[RequestT], str]
    local: bool = False
    """Run action and compensation as local activities, inside the workflow task.

    For short steps only (a ledger write): a local attempt gives no per-attempt activity events
    in the history, and the saga's deadline is then raced against a timer.
    """
    pivot: bool = False
    """The saga's point of no return (at most one step). Once it starts, nothing is compensated:
    failures of it and of the steps after it retry forward and then park for an operator, and a
    cancel or the deadline is recorded and otherwise ignored."""
    inquiry: str | None = None
    """Activity type name that asks the counterparty whether the action executed, by its
    idempotency key (see Inquiry). The action asks it before every retry, and the saga asks it
    when the action's attempts end in timeouts or transient errors, before deciding."""
    inquiry_retry: RetrySpec | None = None
    """How often an inquiry that answers `unknown` (or fails) is asked again; the action's spec
    when None."""
    awaits: str | None = None
    """The name of an external event (delivered by the `saga_event` signal) the step waits for
    before its action runs; the action gets its payload as `call.event`."""
    await_timeout: timedelta | Callable[[RequestT], timedelta] = timedelta(hours=1)
    """How long the step waits for its event, fixed or read from the request (a rail's usual
    settlement time); then the action runs with `call.event` None and decides by asking."""
    rail: RailEffect | None = None
    """The action's ledger entry is money a rail moves, which its statements book too: the
    reconciliation matches the two."""

    def event_wait(self, request: RequestT) -> timedelta:
        """How long this saga's step waits for its event."""
        if isinstance(self.await_timeout, timedelta):
            return self.await_timeout
        return self.await_timeout(request)


@dataclass(frozen=True, kw_only=True)
class SagaDefinition(Generic[RequestT, StateT]):
    """A saga type: its request and state models and its steps, run by the generic runtime."""

    saga_type: str
    request_type: type[RequestT]
    state_type: type[StateT]
    steps: tuple[StepDefinition[RequestT], ...]
    parties: tuple[str, ...] = ()
    """The request's fields that name the saga's parties, the one paying first (debtor then
    creditor, from then to): account ids, or a party outside the ledger such as a beneficiary.
    `sagas list` and `sagas view` show them beside the request's `amounts()`; none: `-`."""
    reference: str | None = None
    """The request's field that holds its reference for statements and people, shown the same
    way; None: `-`."""
    call_type: type[StepCall[RequestT, StateT]] = field(init=False)

    def __post_init__(self) -> None:
        self._check_shown_fields()
        names = [step.name for step in self.steps]
        if len(set(names)) != len(names):
            raise ValueError(f"saga {self.saga_type}: step names must be unique, got {names}")
        pivots = [step.name for step in self.steps if step.pivot]
        if len(pivots) > 1:
            raise ValueError(f"saga {self.saga_type}: at most one pivot step, got {pivots}")
        for step in self.steps:
            if step.rail is not None and step.rail.reference_step not in names:
                raise ValueError(
                    f"saga {self.saga_type}: step {step.name}'s rail reference_step "
                    f"{step.rail.reference_step!r} is not one of its steps"
                )
        if any(step.awaits is not None and step.local for step in self.steps):
            raise ValueError(f"saga {self.saga_type}: a step that awaits an event is not local")
        object.__setattr__(self, "call_type", StepCall[self.request_type, self.state_type])  # type: ignore[name-defined]

    def _check_shown_fields(self) -> None:
        for name in (*self.parties, *([self.reference] if self.reference else [])):
            if name not in self.request_type.model_fields:
                raise ValueError(
                    f"saga {self.saga_type}: {name!r} (parties or reference) is not a field "
                    f"of {self.request_type.__name__}"
                )

    @functools.cached_property
    def has_local_steps(self) -> bool:
        return any(step.local for step in self.steps)

    @functools.cached_property
    def pivot_index(self) -> int | None:
        """The index of the pivot step, if the saga has one."""
        return next((index for index, step in enumerate(self.steps) if step.pivot), None)

    def forward_only(self, step_index: int) -> bool:
        """Whether a failure at this step retries forward instead of compensating."""
        pivot = self.pivot_index
        return pivot is not None and step_index >= pivot

    def with_local_steps(self) -> SagaDefinition[RequestT, StateT]:
        """The same saga with every step run as a local activity.

        A running saga must keep the mode it started with: give this definition its own workflow
        type rather than switching an existing one (docs/determinism.md).
        """
        return replace(self, steps=tuple(replace(step, local=True) for step in self.steps))

    def step(self, name: str) -> StepDefinition[RequestT]:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)
