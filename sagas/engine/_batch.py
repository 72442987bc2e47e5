"""Batches as data: a parent saga whose items are sagas of one registered type.

The parent starts each item as its own saga (its own workflow, id, steps, compensations and
audit records), at most `concurrency` at once, and continues as new every `items_per_run`
items so its history stays small. An item that fails ends its own way (compensated, parked,
rejected): the others are not undone. The parent ends COMPLETED with every item's outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from sagas.engine._definition import IDEMPOTENCY_KEY, SagaDefinition, SagaRequest, saga_id
from sagas.engine._outcome import SagaOutcome, SagaView, StepFailure
from sagas.engine._status import SagaStatus
from sagas.foundations import InvalidRequestError, invalid_request_from

MAX_BATCH_ITEMS = 1000
"""The most items one batch takes; larger payment files are split by the caller."""
MAX_CONCURRENCY = 50
"""The most items of one batch running at once, whatever the request asks."""
_ITEM_SUFFIX = len(f"-{MAX_BATCH_ITEMS}")


class BatchItemStatus(StrEnum):
    """How an item ended: its saga's terminal status, or why it has none."""

    COMPLETED = "COMPLETED"
    COMPENSATED = "COMPENSATED"
    RESOLVED = "RESOLVED"
    REJECTED = "REJECTED"
    NOT_STARTED = "NOT_STARTED"  # the batch was cancelled or passed its deadline first
    ABORTED = "ABORTED"  # its workflow closed without an outcome (terminated, timed out), or
    # its saga id was already taken by another saga: nothing of this batch ran under it


class BatchItemOutcome(BaseModel):
    """One item of a batch, as the batch's outcome and audit record list it."""

    model_config = ConfigDict(frozen=True)

    number: int
    """From 1; the item's saga id is `<item type>-<batch key>-<number>`."""
    saga_id: str
    status: BatchItemStatus
    failure: StepFailure | None = None
    note: str = ""


class BatchOutcome(SagaOutcome):
    """A batch's outcome: a SagaOutcome (COMPLETED, or REJECTED for its input) with its items."""

    items: list[BatchItemOutcome] = []
    runs: int = 1
    """How many workflow runs the batch took (it continues as new every `items_per_run`)."""

    def counts(self) -> dict[str, int]:
        return item_counts(self.items)


class BatchView(SagaView):
    """A running batch: the items ended so far and those running."""

    items: list[BatchItemOutcome] = []
    running: list[str] = []
    """Saga ids of the items running now."""
    total: int = 0


def outcome_from(raw: Any) -> SagaOutcome:
    """A workflow's result as the outcome of a saga or, when it lists items, of a batch."""
    if isinstance(raw, dict) and "items" in raw:
        return BatchOutcome.model_validate(raw)
    return SagaOutcome.model_validate(raw)


def view_from(raw: Any) -> SagaView:
    """A view query's answer as the view of a saga or, when it lists items, of a batch."""
    if isinstance(raw, dict) and "items" in raw:
        return BatchView.model_validate(raw)
    return SagaView.model_validate(raw)


def item_counts(items: list[BatchItemOutcome]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.status.value] = counts.get(item.status.value, 0) + 1
    return dict(sorted(counts.items()))


class BatchRequest(SagaRequest):
    """Base of a batch's request: the items, each the request of one item saga without its
    idempotency key (the batch derives `<batch key>-<number>`).

    Subclasses set `item_request_type`; every item is checked against it before the batch
    starts, a refusal naming `items[<number>].<field>`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    item_request_type: ClassVar[type[SagaRequest]]

    items: list[dict[str, JsonValue]] = Field(
        description=f"The items, 1 to {MAX_BATCH_ITEMS}, each an item saga's request without "
        "idempotency_key."
    )
    concurrency: int | None = Field(
        default=None,
        description=f"Items running at once, 1 to {MAX_CONCURRENCY}; the batch type's default "
        "when absent.",
    )

    @field_validator("idempotency_key")
    @classmethod
    def _check_batch_key(cls, value: str) -> str:
        if not IDEMPOTENCY_KEY.fullmatch(value + "-1") or len(value) + _ITEM_SUFFIX > 128:
            raise InvalidRequestError(
                "idempotency_key",
                f"must be 1-{128 - _ITEM_SUFFIX} characters of letters, digits and . _ : @ - "
                "(each item's key adds -<number>)",
            )
        return value

    @field_validator("items")
    @classmethod
    def _check_count(cls, value: list[dict[str, JsonValue]]) -> list[dict[str, JsonValue]]:
        if not 1 <= len(value) <= MAX_BATCH_ITEMS:
            raise InvalidRequestError("items", f"must hold 1 to {MAX_BATCH_ITEMS} items")
        return value

    @field_validator("concurrency")
    @classmethod
    def _check_concurrency(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= MAX_CONCURRENCY:
            raise InvalidRequestError("concurrency", f"must be in [1, {MAX_CONCURRENCY}]")
        return value

    @model_validator(mode="after")
    def _check_items(self) -> BatchRequest:
        for number in range(1, len(self.items) + 1):
            self.item_request(number)
        return self

    def item_key(self, number: int) -> str:
        return f"{self.idempotency_key}-{number}"

    def item_request(self, number: int) -> SagaRequest:
        """Item `number` (from 1) as its saga's request; InvalidRequestError naming the field."""
        fields = self.items[number - 1]
        where = f"items[{number}]"
        if "idempotency_key" in fields:
            raise InvalidRequestError(f"{where}.idempotency_key", "is set by the batch")
        try:
            return self.item_request_type.model_validate(
                {**fields, "idempotency_key": self.item_key(number)}
            )
        except ValueError as err:
            refused = invalid_request_from(err)
            raise InvalidRequestError(f"{where}.{refused.field}", refused.problem) from None

    def account_fields(self) -> dict[str, str]:
        return {
            f"items[{number}].{name}": account
            for number in range(1, len(self.items) + 1)
            for name, account in self.item_request(number).account_fields().items()
        }

    def account_currencies(self) -> dict[str, str]:
        return {
            f"items[{number}].{name}": code
            for number in range(1, len(self.items) + 1)
            for name, code in self.item_request(number).account_currencies().items()
        }

    def summary(self) -> str:
        return f"Batch {self.idempotency_key} of {len(self.items)} items"


class BatchState(BaseModel):
    """A batch keeps no step state: its progress is in BatchProgress."""


class BatchProgress(BaseModel):
    """What a batch carries into its next run when it continues as new."""

    next_number: int = 1
    items: list[BatchItemOutcome] = []
    started_at: datetime | None = None
    runs: int = 1


@dataclass(frozen=True, kw_only=True)
class BatchDefinition:
    """A batch type: its request type and the saga type (and workflow type) of its items."""

    saga_type: str
    request_type: type[BatchRequest]
    item_saga: SagaDefinition[Any, Any]
    item_workflow: str
    """The workflow type each item starts as (that of the item saga type's activity mode)."""
    concurrency: int = 10
    """Items running at once unless the request asks for fewer or more."""
    items_per_run: int = 100
    """Items one workflow run starts before the batch continues as new."""
    saga: SagaDefinition[BatchRequest, BatchState] = field(init=False)
    """The batch as a saga type without steps: what the registry and the client know of it."""

    def __post_init__(self) -> None:
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise ValueError(
                f"batch {self.saga_type}: concurrency must be in [1, {MAX_CONCURRENCY}]"
            )
        if self.items_per_run < 1:
            raise ValueError(f"batch {self.saga_type}: items_per_run must be at least 1")
        if self.request_type.item_request_type is not self.item_saga.request_type:
            raise ValueError(
                f"batch {self.saga_type}: its request's items must be "
                f"{self.item_saga.request_type.__name__} requests"
            )
        saga = SagaDefinition(
            saga_type=self.saga_type,
            request_type=self.request_type,
            state_type=BatchState,
            steps=(),
        )
        object.__setattr__(self, "saga", saga)

    def item_saga_id(self, request: BatchRequest, number: int) -> str:
        return saga_id(self.item_saga.saga_type, request.item_key(number))

    def concurrency_of(self, request: BatchRequest) -> int:
        return request.concurrency or self.concurrency


TERMINAL_ITEM = {
    SagaStatus.COMPLETED: BatchItemStatus.COMPLETED,
    SagaStatus.COMPENSATED: BatchItemStatus.COMPENSATED,
    SagaStatus.RESOLVED: BatchItemStatus.RESOLVED,
    SagaStatus.REJECTED: BatchItemStatus.REJECTED,
}
