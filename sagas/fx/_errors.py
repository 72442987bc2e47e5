"""The FX transfer's business errors: each refuses the conversion before any money moves."""

from __future__ import annotations

from sagas.foundations import BusinessError


class QuoteExpiredError(BusinessError):
    """The locked rate expired before the step that needs it ran: a new saga must quote again."""


class RateUnavailableError(BusinessError):
    """The rate source has no usable rate for the currency pair."""


class ConversionTooSmallError(BusinessError):
    """The converted amount rounds to zero in the target currency's minor units."""
