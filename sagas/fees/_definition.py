"""The fee-collection saga: reserve the fee on the customer, then charge it.

`charge` posts one balanced entry of the saga's own kind, `fee`: the customer pays fee plus
tax, the fee goes to the declared system account `@fee-income:<currency>` and the tax to
`@tax-payable:<currency>`; the hold placed by `reserve` is consumed in the same transaction.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sagas.engine import SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.fees._request import FeeRequest

FEE_COLLECTION = "fee-collection"
FEE_INCOME = "fee-income"
"""System-account role: the fees the business earned, per currency."""
TAX_PAYABLE = "tax-payable"
"""System-account role: tax collected on fees, owed to the tax authority."""
FEE_ENTRY = "fee"
"""Entry kind of a charged fee."""

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)


class FeeState(BaseModel):
    """What the steps learned: the hold placed and the entry posted."""

    model_config = ConfigDict(frozen=True)

    hold_key: str | None = None
    fee_entry_id: int | None = None


FeeCall = StepCall[FeeRequest, FeeState]

FEE_COLLECTION_SAGA = SagaDefinition(
    saga_type=FEE_COLLECTION,
    request_type=FeeRequest,
    state_type=FeeState,
    parties=("customer_account",),
    reference="reference",
    steps=(
        StepDefinition(
            name="reserve",
            action="fee-collection.reserve",
            compensation="fee-collection.reserve.compensation",
            action_retry=ACTION_RETRY,
            compensation_retry=COMPENSATION_RETRY,
            describe_action=lambda r: f"hold {r.total} on {r.customer_account}",
            describe_compensation=lambda r: (
                f"release the hold of {r.total} on {r.customer_account}"
            ),
        ),
        StepDefinition(
            name="charge",
            action="fee-collection.charge",
            compensation="fee-collection.charge.compensation",
            action_retry=ACTION_RETRY,
            compensation_retry=COMPENSATION_RETRY,
            describe_action=lambda r: f"charge {r.total} to {r.customer_account}",
            describe_compensation=lambda r: f"refund {r.total} to {r.customer_account}",
        ),
    ),
)
