"""A saga type defined only in the tests: the engine runs it with no edit of its own.

`SAGA_TYPES` is what `FUNDSAGA_SAGA_MODULES=tests.escrow` (or `load_registry`) registers;
importing it defines the escrow's own error classes too.
"""

from sagas.registry import SagaType
from tests.escrow.activities import EscrowActivities
from tests.escrow.errors import EscrowAgentBusyError, EscrowDisputedError
from tests.escrow.saga import ESCROW_SAGA
from tests.escrow.workflows import EscrowWorkflow

ESCROW = SagaType(
    definition=ESCROW_SAGA,
    workflows={"activity": EscrowWorkflow},
    activities=lambda context: EscrowActivities(context.ledger, context.faults).all(),
)
SAGA_TYPES = [ESCROW]

__all__ = ["ESCROW", "SAGA_TYPES", "EscrowAgentBusyError", "EscrowDisputedError"]
