"""Which parked sagas an operator means: a filter on type, what the saga is parked on, the error
that parked it and when it parked, and the sagas it selects with those facts."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime

from temporalio.client import Client

from sagas.client._recoveries import NOT_RECOVERY
from sagas.engine import (
    SAGA_STATUS,
    SAGA_STATUS_SINCE,
    SAGA_TYPE,
    CompensationResult,
    OperatorDecision,
    SagaStatus,
    SagaView,
)
from sagas.foundations import InvalidRequestError
from sagas.registry import SagaRegistry


@dataclass(frozen=True, kw_only=True)
class ParkedFilter:
    """Which parked sagas a bulk action takes; a field left None matches every saga."""

    saga_type: str | None = None
    step: str | None = None
    """The step the saga is parked on: the compensation on top of its stack, or (parked past its
    pivot) the step itself."""
    error_type: str | None = None
    """The error type of the failure that parked it, e.g. `AccountFrozenError`."""
    parked_since: datetime | None = None
    """Parked at or after this time (its `SagaStatusSince`)."""
    parked_before: datetime | None = None
    """Parked before this time."""

    @property
    def is_empty(self) -> bool:
        """Whether this filter selects every parked saga."""
        return all(getattr(self, field.name) is None for field in fields(self))

    def check(self, registry: SagaRegistry) -> None:
        """InvalidRequestError naming the field of a value that can match no saga."""
        if self.saga_type is not None:
            registry.get(self.saga_type)
        if self.step is not None and not registry.has_step(self.saga_type, self.step):
            kind = f"saga type {self.saga_type!r}" if self.saga_type else "any registered type"
            raise InvalidRequestError("step", f"{self.step!r} is no step of {kind}")
        if self.error_type is not None and not self.error_type.strip():
            raise InvalidRequestError("error_type", "must not be empty")
        for name in ("parked_since", "parked_before"):
            moment: datetime | None = getattr(self, name)
            if moment is not None and moment.tzinfo is None:
                raise InvalidRequestError(name, "needs a UTC offset, say 2026-11-26T09:00Z")
        if self.parked_since and self.parked_before and self.parked_since >= self.parked_before:
            raise InvalidRequestError("parked_before", "must be later than the parked-since time")

    def matches(self, saga: ParkedSaga) -> bool:
        return (
            self.saga_type in (None, saga.saga_type)
            and self.step in (None, saga.parked_on)
            and self.error_type in (None, saga.error_type)
            and self._parked_in_window(saga.since)
        )

    def _parked_in_window(self, since: datetime | None) -> bool:
        if self.parked_since is None and self.parked_before is None:
            return True
        if since is None:  # no parking time listed: a window cannot vouch for it
            return False
        after = self.parked_since is None or since >= self.parked_since
        return after and (self.parked_before is None or since < self.parked_before)


@dataclass(frozen=True)
class ParkedSaga:
    """A saga parked in NEEDS_ATTENTION, with what an operator decides on."""

    saga_id: str
    saga_type: str
    key: str
    failed_step: str | None
    """The step whose failure stopped the forward path (None: a cancel, or no step)."""
    parked_on: str
    """The step whose compensation (or, `on_step`, whose action) waits for an operator."""
    on_step: bool
    error_type: str
    error: str
    since: datetime | None
    """When it parked (`SagaStatusSince`)."""
    proposal_id: str | None = None
    """Its open proposal of a resolution by hand, which an approval names."""
    proposed_by: str | None = None

    @classmethod
    def of(cls, view: SagaView, since: datetime | None) -> ParkedSaga:
        on_step = view.parked_on_step and view.failure is not None
        if on_step and view.failure is not None:
            parked_on = view.failure.step_name or "-"
            error_type, error = view.failure.error_type, view.failure.message
        else:
            stack = view.compensation_stack
            parked_on = stack[-1].step_name if stack else "-"
            failed = [c for c in view.compensations if c.result is CompensationResult.FAILED]
            error_type = failed[-1].error_type if failed else ""
            error = failed[-1].message if failed else ""
        proposal_id, proposed_by = _open_proposal(view)
        return cls(
            saga_id=view.saga_id,
            saga_type=view.saga_type,
            key=view.saga_id.removeprefix(f"{view.saga_type}-"),
            failed_step=view.failure.step_name if view.failure is not None else None,
            parked_on=parked_on,
            on_step=on_step,
            error_type=error_type,
            error=error,
            since=since,
            proposal_id=proposal_id,
            proposed_by=proposed_by,
        )


def _open_proposal(view: SagaView) -> tuple[str | None, str | None]:
    """The newest proposal not followed by a retry or an approval, and who made it."""
    open_one: tuple[str | None, str | None] = (None, None)
    for action in view.operator_actions:
        if action.decision is OperatorDecision.PROPOSE:
            open_one = (action.proposal_id, action.operator)
        else:
            open_one = (None, None)
    return open_one


async def parked_sagas(
    temporal: Client, task_queue: str, selection: ParkedFilter
) -> list[tuple[str, str, datetime | None]]:
    """(saga id, saga type, parked since) of the sagas Temporal lists as parked on `task_queue`,
    of the filter's type, newest first; not the killed ones, nor their recoveries."""
    clauses = [
        f"{SAGA_STATUS.name} = '{SagaStatus.NEEDS_ATTENTION.value}'",
        f"TaskQueue = '{task_queue}'",
        # A killed execution keeps the status it had; a parked recovery is listed on its own.
        "ExecutionStatus = 'Running'",
        NOT_RECOVERY,
    ]
    if selection.saga_type is not None:
        clauses.append(f"{SAGA_TYPE.name} = '{selection.saga_type}'")
    found: list[tuple[str, str, datetime | None]] = []
    async for execution in temporal.list_workflows(" AND ".join(clauses)):
        attributes = execution.typed_search_attributes
        found.append(
            (execution.id, attributes.get(SAGA_TYPE) or "", attributes.get(SAGA_STATUS_SINCE))
        )
    return found
