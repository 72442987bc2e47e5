"""The FX transfer saga: its request, state, definition, errors and rate-source interface."""

from sagas.fx._definition import (
    ACTION_RETRY,
    COMPENSATION_RETRY,
    FX_ENTRY,
    FX_POSITION,
    FX_TRANSFER,
    FX_TRANSFER_SAGA,
    FxCall,
    FxState,
)
from sagas.fx._errors import ConversionTooSmallError, QuoteExpiredError, RateUnavailableError
from sagas.fx._rates import (
    DEFAULT_QUOTE_TTL,
    DEMO_RATES,
    Conversion,
    FixedRateSource,
    Quote,
    RateSource,
    convert_amount,
    parse_rate,
)
from sagas.fx._request import FxRequest

__all__ = [
    "ACTION_RETRY",
    "COMPENSATION_RETRY",
    "DEFAULT_QUOTE_TTL",
    "DEMO_RATES",
    "FX_ENTRY",
    "FX_POSITION",
    "FX_TRANSFER",
    "FX_TRANSFER_SAGA",
    "Conversion",
    "ConversionTooSmallError",
    "FixedRateSource",
    "FxCall",
    "FxRequest",
    "FxState",
    "Quote",
    "QuoteExpiredError",
    "RateSource",
    "RateUnavailableError",
    "convert_amount",
    "parse_rate",
]
