"""What a saga reports: its view for queries and its final outcome."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from sagas.engine._snapshot import CompensationEntry, Snapshot
from sagas.engine._status import SagaStatus


class StepFailure(BaseModel):
    """Why the forward path stopped."""

    step_name: str | None
    reason: str  # business_error, retries_exhausted, cancelled, deadline
    error_type: str
    message: str
    attempts: int = 0


class CompensationOutcome(BaseModel):
    step_name: str
    compensation: str
    result: str  # compensated, failed, resolved_by_operator
    message: str = ""
    at: datetime


class OperatorAction(BaseModel):
    """An operator's decision on a parked saga."""

    operator: str = Field(min_length=1, max_length=200)
    note: str = Field(default="", max_length=4000)
    decision: str | None = None
    """Filled in by the saga: "retry" or "resolve"."""


class SagaView(BaseModel):
    """The saga as the `state` query returns it."""

    saga_id: str
    saga_type: str
    status: SagaStatus
    current_step: str | None
    snapshots: list[Snapshot]
    compensation_stack: list[CompensationEntry]
    failure: StepFailure | None
    compensations: list[CompensationOutcome]
    operator_actions: list[OperatorAction] = []


class SagaOutcome(BaseModel):
    """The final result: returned when COMPLETED, attached to the failure otherwise."""

    saga_id: str
    saga_type: str
    status: SagaStatus
    failure: StepFailure | None = None
    compensations: list[CompensationOutcome] = []
    operator_actions: list[OperatorAction] = []
