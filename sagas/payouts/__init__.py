"""The external payout saga: its request, state, errors and definition."""

from sagas.payouts._definition import (
    EXTERNAL_PAYOUT,
    EXTERNAL_PAYOUT_SAGA,
    PAYOUT_CLEARING,
    PAYOUT_ENTRY,
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
    "EXTERNAL_PAYOUT",
    "EXTERNAL_PAYOUT_SAGA",
    "MAX_SETTLE_WAIT_SECONDS",
    "PAYOUT_CLEARING",
    "PAYOUT_ENTRY",
    "SETTLED_EVENT",
    "SETTLE_WAIT",
    "PayoutCall",
    "PayoutDeclinedError",
    "PayoutRequest",
    "PayoutState",
    "ProviderKeyConflictError",
    "ProviderRateLimitedError",
    "ProviderUnavailableError",
    "SettlementPendingError",
]
