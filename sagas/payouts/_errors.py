"""What the payment provider can answer that a step must act on."""

from __future__ import annotations

from sagas.foundations import BusinessError, TransientError


class PayoutDeclinedError(BusinessError):
    """The provider declined the payout (422): before the pivot the saga compensates."""


class ProviderKeyConflictError(BusinessError):
    """The provider holds another payout under this payout's key (409)."""


class ProviderRateLimitedError(TransientError):
    """The provider answered 429: the next attempt waits at least its Retry-After."""


class ProviderUnavailableError(TransientError):
    """The provider did not answer in time, or answered 5xx: the payout may have been taken."""


class SettlementPendingError(TransientError):
    """The provider has not settled the payout yet: asked again by the step's retry spec."""
