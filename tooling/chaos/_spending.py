"""Payees that spend whatever they can while transfers to them are still compensating."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from temporalio.api.failure.v1 import Failure
from temporalio.client import WorkflowHandle

from sagas.foundations import InsufficientFundsError, TransientError
from sagas.ledger import Ledger
from tooling.chaos._plan import ChaosPlan, Spender

SPEND_EVERY_S = 0.2


def spend_prefix(plan: ChaosPlan) -> str:
    """The keys of the payees' spends: entries the run writes itself, outside the engine, with
    no saga or operator to witness them."""
    return f"chaos-{plan.config.seed}-spend-"


async def spend_until(ledger: Ledger, plan: ChaosPlan, done: asyncio.Event) -> int:
    """Spend each payee's whole available balance, again and again; the number of spends."""
    keys = (f"{spend_prefix(plan)}{n}" for n in itertools.count())
    spends = 0
    while not done.is_set():
        for spender in plan.spenders:
            spends += await asyncio.to_thread(_spend_all, ledger, spender, next(keys))
        await asyncio.sleep(SPEND_EVERY_S)
    return spends


def _spend_all(ledger: Ledger, spender: Spender, key: str) -> int:
    try:
        available = ledger.account(spender.payee).available
        if available.minor <= 0:
            return 0
        ledger.transfer(key, spender.payee, spender.shop, available, saga_id=key)
    except (InsufficientFundsError, TransientError):  # a saga reserved it first; no database
        return 0
    return 1


async def parked_by_spent_funds(handle: WorkflowHandle[Any, Any], undo: frozenset[str]) -> bool:
    """Whether one of the saga's compensations (activity types `undo`) failed for good because
    an account no longer had the money it was to take back."""
    scheduled: dict[int, str] = {}
    async for event in handle.fetch_history_events():
        if event.HasField("activity_task_scheduled_event_attributes"):
            activity_type = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = activity_type
        elif event.HasField("activity_task_failed_event_attributes"):
            failed = event.activity_task_failed_event_attributes
            if scheduled.get(failed.scheduled_event_id) in undo and _spent(failed.failure):
                return True
    return False


def _spent(failure: Failure) -> bool:
    while True:
        if failure.application_failure_info.type == InsufficientFundsError.__name__:
            return True
        if not failure.HasField("cause"):
            return False
        failure = failure.cause
