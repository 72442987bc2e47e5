"""External events a step waits for (a provider's settlement callback), delivered by signal.

The first event of each name counts; a duplicate is counted and otherwise ignored, so a
callback the counterparty sends twice has one effect.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from sagas.foundations import canonical_json

EVENT_SIGNAL = "saga_event"


class SagaEvent(BaseModel):
    """The input of the event signal."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1, max_length=128)
    payload: dict[str, JsonValue] = {}


class EventWait(StrEnum):
    RECEIVED = "received"  # the event arrived (before or during the wait)
    TIMED_OUT = "timed_out"  # the step's wait ended without it: the step's inquiry decides


class EventRecord(BaseModel):
    """How a step's wait for an event ended, as the saga's view shows it."""

    model_config = ConfigDict(frozen=True)

    step_name: str
    event: str
    result: EventWait
    at: datetime
    duplicates: int = 0
    """Copies of the event that arrived after the first, up to the end of the wait."""


MAX_EVENT_NAMES = 32
"""Distinct event names a saga keeps; a saga type's steps await a handful."""
MAX_EVENT_PAYLOAD = 65_536
"""Bytes of an event's payload (canonical JSON) a saga keeps, as the webhook receiver's cap."""


class EventInbox:
    """The events a saga has received: the first per name, and how many duplicates. Whoever may
    signal the workflow cannot make it keep more than MAX_EVENT_NAMES events of at most
    MAX_EVENT_PAYLOAD bytes each: the rest is only counted in `ignored`."""

    def __init__(self) -> None:
        self.first: dict[str, SagaEvent] = {}
        self.duplicates: dict[str, int] = {}
        self.ignored = 0

    def receive(self, event: SagaEvent) -> None:
        if event.name in self.first:
            self.duplicates[event.name] = self.duplicates.get(event.name, 0) + 1
        elif (
            len(self.first) >= MAX_EVENT_NAMES
            or len(canonical_json(event.payload).encode()) > MAX_EVENT_PAYLOAD
        ):
            self.ignored += 1
        else:
            self.first[event.name] = event
