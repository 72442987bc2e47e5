"""The end-of-day sweep saga: its request, state and definition."""

from sagas.sweep._definition import (
    ACTION_RETRY,
    COMPENSATION_RETRY,
    EOD_SWEEP,
    EOD_SWEEP_SAGA,
    SWEEP_ENTRY,
    SweepCall,
    SweepState,
)
from sagas.sweep._request import SweepRequest

__all__ = [
    "ACTION_RETRY",
    "COMPENSATION_RETRY",
    "EOD_SWEEP",
    "EOD_SWEEP_SAGA",
    "SWEEP_ENTRY",
    "SweepCall",
    "SweepRequest",
    "SweepState",
]
