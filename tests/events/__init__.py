"""A step that waits for an external event, on a saga defined only in the tests."""

from sagas.registry import SagaType
from tests.events.saga import SETTLE_SAGA, settle
from tests.events.workflows import SettleWorkflow

SETTLE = SagaType(
    definition=SETTLE_SAGA,
    workflows={"activity": SettleWorkflow},
    activities=lambda context: [settle],
)
