"""The transfer saga: its request, state and definition."""

from sagas.transfer._definition import (
    ACTION_RETRY,
    COMPENSATION_RETRY,
    TRANSFER_SAGA,
    TransferCall,
    clearing_account,
)
from sagas.transfer._request import TransferRequest
from sagas.transfer._state import TransferState

__all__ = [
    "ACTION_RETRY",
    "COMPENSATION_RETRY",
    "TRANSFER_SAGA",
    "TransferCall",
    "TransferRequest",
    "TransferState",
    "clearing_account",
]
