"""The escrow's own errors: defined here, classified by the engine by their base class alone."""

from sagas import BusinessError, TransientError


class EscrowDisputedError(BusinessError):
    """The payer disputes the escrow: no retry can release it."""


class EscrowAgentBusyError(TransientError):
    """The escrow agent asked to be called again later."""
