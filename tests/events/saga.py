"""`test-settle`: one step that awaits the `settled` event, then records where its answer came
from (the event's payload, or its own asking when the wait timed out)."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict
from temporalio import activity

from sagas import SagaDefinition, SagaRequest, StepCall, StepDefinition, retry_spec

WAIT = timedelta(minutes=10)
ACTIONS_RUN: list[tuple[str, str]] = []
"""(saga id, where its answer came from), once per run of the action."""


class SettleRequest(SagaRequest):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SettleState(BaseModel):
    model_config = ConfigDict(frozen=True)

    settled_by: str | None = None


SettleCall = StepCall[SettleRequest, SettleState]

QUICK = retry_spec(first_interval_s=1, multiplier=2, max_retries=2, max_interval_s=4)
SETTLE_SAGA = SagaDefinition(
    saga_type="test-settle",
    request_type=SettleRequest,
    state_type=SettleState,
    steps=(
        StepDefinition(
            name="settle",
            action="test-settle.settle",
            compensation=None,
            action_retry=QUICK,
            compensation_retry=QUICK,
            describe_action=lambda r: "settle",
            describe_compensation=lambda r: "-",
            awaits="settled",
            await_timeout=WAIT,
        ),
    ),
)


@activity.defn(name="test-settle.settle")
def settle(call: SettleCall) -> SettleState:
    reference = None if call.event is None else call.event.get("reference")
    settled_by = "asking" if reference is None else str(reference)
    ACTIONS_RUN.append((call.saga_id, settled_by))
    return SettleState(settled_by=settled_by)
