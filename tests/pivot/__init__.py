"""A saga type with a pivot and inquiries, defined only in the tests."""

from sagas.registry import SagaType
from tests.pivot.activities import PayoutActivities
from tests.pivot.saga import CLEARING, PAYOUT_SAGA
from tests.pivot.workflows import PivotPayoutWorkflow

PAYOUT = SagaType(
    definition=PAYOUT_SAGA,
    workflows={"activity": PivotPayoutWorkflow},
    activities=lambda context: PayoutActivities(context.ledger, context.faults).all(),
    system_accounts=(CLEARING,),
    entry_kinds=("test-payout",),
)
SAGA_TYPES = [PAYOUT]
