"""The sagas whose histories the determinism guard replays: one per workflow type and outcome.

`python -m tooling.record_histories` records them (docs/determinism.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle

from sagas import OperatorAction, SagaOutcome
from sagas.app import FundsagaClient

HISTORIES = Path(__file__).parent / "histories"
PARKS = "capture.compensation=business"
"""Undoing the capture is refused: the saga parks in NEEDS_ATTENTION."""

Handle = WorkflowHandle[Any, SagaOutcome]


@dataclass(frozen=True)
class Scenario:
    outcome: str
    destination: str
    faults: str = ""
    operator: Callable[[FundsagaClient, str], Awaitable[object]] | None = None
    """What an operator does once the saga has parked."""


async def _resolve(client: FundsagaClient, key: str) -> object:
    return await client.resolve(key, OperatorAction(operator="recorder", note="undone by hand"))


async def _retry(client: FundsagaClient, key: str) -> object:
    return await client.retry_compensation(key, OperatorAction(operator="recorder"))


SCENARIOS = [
    Scenario(outcome="completed", destination="open"),
    Scenario(outcome="compensated", destination="frozen"),
    Scenario(outcome="needs-attention", destination="frozen", faults=PARKS),
    Scenario(outcome="resolved", destination="frozen", faults=PARKS, operator=_resolve),
    Scenario(outcome="retried", destination="frozen", faults=PARKS, operator=_retry),
]
"""One saga per outcome; `retried` is COMPENSATED after an operator's retry."""


def history_key(workflow_name: str, outcome: str) -> str:
    return f"replay-{workflow_name}-{outcome}"
