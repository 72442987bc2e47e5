"""Unknown outcomes: asking the counterparty whether a step's action executed.

A step that declares an inquiry activity gets it asked twice over: by the action itself before
each retry (Temporal retries on the server, so only the activity sees the gap between
attempts), and by the saga when the action's attempts end in timeouts or transient errors.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue
from temporalio import activity


class InquiryAnswer(StrEnum):
    EXECUTED = "executed"  # the counterparty did it: the step's result is known
    NOT_EXECUTED = "not_executed"  # the counterparty has no trace of it: nothing happened
    UNKNOWN = "unknown"  # the counterparty cannot tell yet


class Inquiry(BaseModel):
    """What an inquiry activity returns, asked by the step's idempotency key."""

    model_config = ConfigDict(frozen=True)

    answer: InquiryAnswer
    state: dict[str, JsonValue] | None = None
    """The step's new state (what its action returns) when the answer is `executed`."""

    @classmethod
    def executed(cls, state: BaseModel) -> Inquiry:
        return cls(answer=InquiryAnswer.EXECUTED, state=state.model_dump(mode="json"))

    @classmethod
    def not_executed(cls) -> Inquiry:
        return cls(answer=InquiryAnswer.NOT_EXECUTED)

    @classmethod
    def unknown(cls) -> Inquiry:
        return cls(answer=InquiryAnswer.UNKNOWN)


class InquiryRecord(BaseModel):
    """An inquiry the saga made, as its view, snapshots and audit records show it."""

    model_config = ConfigDict(frozen=True)

    step_name: str
    answer: InquiryAnswer
    asked: int
    """How many times it was asked before this answer (an `unknown` is asked again)."""
    at: datetime


def _executed_state(call: Any, found: Inquiry) -> Any:
    return type(call.state).model_validate(found.state or {})


def asking_first(action: Callable[..., Any], inquiry: Callable[..., Inquiry]) -> Callable[..., Any]:
    """`action` as the worker registers it when its step declares `inquiry`: from the second
    attempt on it asks first, and returns an executed result instead of acting again."""
    name = activity._Definition.must_from_callable(action).name
    if inspect.iscoroutinefunction(action):

        @functools.wraps(action, updated=())
        async def act_async(call: Any) -> Any:
            if activity.info().attempt > 1:
                found = inquiry(call)
                if inspect.isawaitable(found):
                    found = await found
                if found.answer is InquiryAnswer.EXECUTED:
                    return _executed_state(call, found)
            return await action(call)

        return activity.defn(name=name)(act_async)

    @functools.wraps(action, updated=())
    def act(call: Any) -> Any:
        if activity.info().attempt > 1:
            found = inquiry(call)
            if found.answer is InquiryAnswer.EXECUTED:
                return _executed_state(call, found)
        return action(call)

    return activity.defn(name=name)(act)
