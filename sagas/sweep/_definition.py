"""The end-of-day sweep saga: one step, `sweep`, that moves the operating account's available
money above the threshold to the treasury account.

The amount is computed and posted in one ledger transaction, on the operating account's
locked row (`Ledger.sweep`), as one entry of the saga's own kind, `sweep`; the step returns it
in the state (`swept`, "0.00" when the account had nothing above the threshold and no entry
was written). Its compensation reverses that entry: it runs only when the saga stops while the
step was under way (a cancel or the deadline during it, or retries exhausted after an attempt
that committed), since the saga completes as soon as the step does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sagas.engine import SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.sweep._request import SweepRequest

EOD_SWEEP = "eod-sweep"
SWEEP_ENTRY = "sweep"
"""Entry kind of a swept amount: operating account to treasury account."""

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)


class SweepState(BaseModel):
    """What the step learned: the amount it moved and its entry (None when it moved nothing)."""

    model_config = ConfigDict(frozen=True)

    swept: str | None = None
    """Decimal string in the request's currency; "0.00" when nothing was above the threshold."""
    sweep_entry_id: int | None = None


SweepCall = StepCall[SweepRequest, SweepState]

EOD_SWEEP_SAGA = SagaDefinition(
    saga_type=EOD_SWEEP,
    request_type=SweepRequest,
    state_type=SweepState,
    parties=("operating_account", "treasury_account"),
    reference="reference",
    steps=(
        StepDefinition(
            name="sweep",
            action="eod-sweep.sweep",
            compensation="eod-sweep.sweep.compensation",
            action_retry=ACTION_RETRY,
            compensation_retry=COMPENSATION_RETRY,
            describe_action=lambda r: (
                f"sweep {r.operating_account} above {r.threshold_money} to {r.treasury_account}"
            ),
            describe_compensation=lambda r: (
                f"return the sweep from {r.treasury_account} to {r.operating_account}"
            ),
        ),
    ),
)
