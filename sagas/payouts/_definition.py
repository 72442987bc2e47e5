"""The external payout: reserve → authorize → capture → submit (the pivot) → settle.

`submit` hands the payout to the provider: the point of no return, with an inquiry that asks
the provider by key. `settle` waits for the provider's settlement callback (the `settled`
event, for at most the request's `settle_wait_seconds`, SETTLE_WAIT by default), then posts
from `@payout-clearing` to `@funding`: the money leaves the system through the rail. Without
the callback it asks the provider.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pydantic import BaseModel, ConfigDict

from sagas.engine import RailEffect, SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.payouts._request import PayoutRequest

EXTERNAL_PAYOUT = "payout"
PAYOUT_WORKFLOW = "ExternalPayoutWorkflow"
"""The workflow type a payout runs as."""
PAYOUT_CLEARING = "payout-clearing"
"""System-account role: payouts taken from customers, not yet settled by the provider."""
PAYOUT_ENTRY = "payout"
"""Entry kind of the payout's postings."""
SETTLED_EVENT = "settled"

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)
SUBMIT_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=8, max_interval_s=60)
"""The pivot can only go forward: a rate limit, a worker restart and a database hiccup in a row
must not park it, so it is asked for about 3 min (1, 2, 4 ... 60, 60 s) before an operator is."""
SETTLE_RETRY = retry_spec(first_interval_s=30, multiplier=2, max_retries=5, max_interval_s=600)
"""A payout still pending at the provider after the wait is asked about for about 15 min more,
then the saga parks for an operator."""


class PayoutState(BaseModel):
    """What the steps learned."""

    model_config = ConfigDict(frozen=True)

    hold_key: str | None = None
    authorized: bool = False
    capture_entry_id: int | None = None
    provider_status: str | None = None
    settlement_entry_id: int | None = None


PayoutCall = StepCall[PayoutRequest, PayoutState]


def _step(name: str, describe: str, undo: str | None) -> StepDefinition[PayoutRequest]:
    return StepDefinition(
        name=name,
        action=f"{EXTERNAL_PAYOUT}.{name}",
        compensation=f"{EXTERNAL_PAYOUT}.{name}.compensation" if undo else None,
        action_retry=ACTION_RETRY,
        compensation_retry=COMPENSATION_RETRY,
        describe_action=lambda r: f"{describe} {r.money}",
        describe_compensation=lambda r: f"{undo or '-'} {r.money}",
    )


EXTERNAL_PAYOUT_SAGA = SagaDefinition(
    saga_type=EXTERNAL_PAYOUT,
    request_type=PayoutRequest,
    state_type=PayoutState,
    parties=("account", "beneficiary"),
    reference="reference",
    steps=(
        _step("reserve", "hold", "release the hold of"),
        _step("authorize", "ask the provider to accept", None),
        _step("capture", "move to payout clearing", "return from payout clearing"),
        replace(
            _step("submit", "hand to the provider", None),
            action_retry=SUBMIT_RETRY,
            pivot=True,
            inquiry=f"{EXTERNAL_PAYOUT}.submit.inquiry",
        ),
        replace(
            _step("settle", "post to the outside world", None),
            action_retry=SETTLE_RETRY,
            awaits=SETTLED_EVENT,
            rail=RailEffect(reference_step="submit", kind="payout"),
            await_timeout=lambda r: timedelta(seconds=r.settle_wait_seconds),
        ),
    ),
)
