"""Why a parked saga parked: an infrastructure fault (which must never park a saga) or not."""

from __future__ import annotations

from sagas.engine import CompensationResult, SagaView
from sagas.foundations import TransientError, error_class_by_name

_TIMEOUTS = ("TimeoutError", "timed out", "timeout")
"""How a Temporal activity timeout reads in a failure message."""


def infrastructure_fault(view: SagaView) -> str | None:
    """The infrastructure fault a parked saga parked on (a transient error class or a timeout),
    as its failure reads; None when it parked on anything else (a business failure)."""
    text = _parking_failure(view)
    for word in _words(text):
        found = error_class_by_name(word)
        if found is not None and issubclass(found, TransientError):
            return text
        if found is None and any(mark in word for mark in _TIMEOUTS):
            return text
    return None


def _parking_failure(view: SagaView) -> str:
    """The failure it parked on: its step's when parked on a step, else its last compensation's."""
    if view.parked_on_step and view.failure is not None:
        return f"{view.failure.error_type}: {view.failure.message}"
    failed = [c for c in view.compensations if c.result is CompensationResult.FAILED]
    return failed[-1].message if failed else ""


def _words(text: str) -> list[str]:
    return [word.strip(":,.()[]'\"") for word in text.split()]
