"""Whoever may signal a saga cannot make it keep events without bound."""

from __future__ import annotations

from sagas.engine import SagaEvent
from sagas.engine._events import MAX_EVENT_NAMES, MAX_EVENT_PAYLOAD, EventInbox


def test_the_first_event_of_a_name_counts_and_a_copy_is_only_counted() -> None:
    inbox = EventInbox()
    inbox.receive(SagaEvent(name="settled", payload={"reference": "a"}))
    inbox.receive(SagaEvent(name="settled", payload={"reference": "b"}))

    assert inbox.first["settled"].payload == {"reference": "a"}
    assert inbox.duplicates == {"settled": 1}


def test_an_oversized_payload_is_not_kept() -> None:
    inbox = EventInbox()
    inbox.receive(SagaEvent(name="settled", payload={"filler": "x" * MAX_EVENT_PAYLOAD}))
    inbox.receive(SagaEvent(name="settled", payload={"reference": "a"}))

    assert inbox.ignored == 1
    assert inbox.first["settled"].payload == {"reference": "a"}


def test_names_beyond_the_limit_are_not_kept() -> None:
    inbox = EventInbox()
    for n in range(MAX_EVENT_NAMES + 5):
        inbox.receive(SagaEvent(name=f"event-{n}"))

    assert len(inbox.first) == MAX_EVENT_NAMES
    assert inbox.ignored == 5
