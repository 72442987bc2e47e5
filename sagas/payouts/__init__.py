"""The external payout saga (its request, state, errors and definition) and the payout batch."""

from sagas.payouts._batch import (
    BATCH_CONCURRENCY,
    BATCH_ITEMS_PER_RUN,
    PAYOUT_BATCH,
    PAYOUT_BATCH_DEFINITION,
    PayoutBatchRequest,
)
from sagas.payouts._definition import (
    EXTERNAL_PAYOUT,
    EXTERNAL_PAYOUT_SAGA,
    PAYOUT_CLEARING,
    PAYOUT_ENTRY,
    PAYOUT_WORKFLOW,
    SETTLED_EVENT,
    PayoutCall,
    PayoutState,
)
from sagas.payouts._errors import (
    PayoutDeclinedError,
    ProviderKeyConflictError,
    ProviderRateLimitedError,
    ProviderUnavailableError,
    SettlementPendingError,
)
from sagas.payouts._request import MAX_SETTLE_WAIT_SECONDS, SETTLE_WAIT, PayoutRequest

__all__ = [
    "BATCH_CONCURRENCY",
    "BATCH_ITEMS_PER_RUN",
    "EXTERNAL_PAYOUT",
    "EXTERNAL_PAYOUT_SAGA",
    "MAX_SETTLE_WAIT_SECONDS",
    "PAYOUT_BATCH",
    "PAYOUT_BATCH_DEFINITION",
    "PAYOUT_CLEARING",
    "PAYOUT_ENTRY",
    "PAYOUT_WORKFLOW",
    "SETTLED_EVENT",
    "SETTLE_WAIT",
    "PayoutBatchRequest",
    "PayoutCall",
    "PayoutDeclinedError",
    "PayoutRequest",
    "PayoutState",
    "ProviderKeyConflictError",
    "ProviderRateLimitedError",
    "ProviderUnavailableError",
    "SettlementPendingError",
]
