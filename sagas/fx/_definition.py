"""The FX transfer saga: quote → reserve → convert.

`quote` locks a rate with an expiry in the saga's state; `reserve` holds the source amount and
`convert` posts one `fx` entry of four legs that consumes the hold. Both refuse an expired quote
with QuoteExpiredError, so an expired rate never moves money.

Where the rounding remainder lives: the destination gets the converted amount rounded half-even
to its currency's minor units, and `@fx-position:<target>` gives exactly that rounded figure,
while `@fx-position:<source>` takes the whole source amount. Valued at the locked rate the two
positions net to the remainder (exact conversion minus rounded figure, at most half a minor unit
of the target), which the FX desk carries in its position; the state records it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from sagas.engine import SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.fx._request import FxRequest

FX_TRANSFER = "fx-transfer"
FX_POSITION = "fx-position"
"""System-account role: the FX desk's position per currency (`@fx-position:EUR`)."""
FX_ENTRY = "fx"
"""Entry kind of a conversion."""

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)


class FxState(BaseModel):
    """What the steps learned: the locked quote, the hold and the conversion entry."""

    model_config = ConfigDict(frozen=True)

    rate: str | None = None
    """Units of the target currency per unit of the source, as the rate source quoted it."""
    quote_expires_at: datetime | None = None
    target_amount: str | None = None
    """The converted amount, rounded half-even to the target currency's minor units."""
    remainder: str | None = None
    """Exact conversion minus `target_amount`: what the FX positions carry."""
    hold_key: str | None = None
    fx_entry_id: int | None = None


FxCall = StepCall[FxRequest, FxState]


def _step(name: str, action: str, compensation: str | None) -> StepDefinition[FxRequest]:
    return StepDefinition(
        name=name,
        action=f"fx-transfer.{name}",
        compensation=None if compensation is None else f"fx-transfer.{name}.compensation",
        action_retry=ACTION_RETRY,
        compensation_retry=COMPENSATION_RETRY,
        describe_action=lambda r: action.format(r=r, m=r.source_money),
        describe_compensation=lambda r: (compensation or "nothing to undo").format(
            r=r, m=r.source_money
        ),
    )


FX_TRANSFER_SAGA = SagaDefinition(
    saga_type=FX_TRANSFER,
    request_type=FxRequest,
    state_type=FxState,
    parties=("source_account", "destination_account"),
    reference="reference",
    steps=(
        _step("quote", "lock a {r.source_currency}/{r.target_currency} rate for {m}", None),
        _step(
            "reserve",
            "hold {m} on {r.source_account}",
            "release the hold of {m} on {r.source_account}",
        ),
        _step(
            "convert",
            "convert {m} from {r.source_account} to {r.target_currency} "
            "for {r.destination_account}",
            "reverse the conversion of {m} {r.source_account} → {r.destination_account}",
        ),
    ),
)
