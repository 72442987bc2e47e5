"""The fee-collection saga: its request, state and definition."""

from sagas.fees._definition import (
    ACTION_RETRY,
    COMPENSATION_RETRY,
    FEE_COLLECTION,
    FEE_COLLECTION_SAGA,
    FEE_ENTRY,
    FEE_INCOME,
    TAX_PAYABLE,
    FeeCall,
    FeeState,
)
from sagas.fees._request import FeeRequest

__all__ = [
    "ACTION_RETRY",
    "COMPENSATION_RETRY",
    "FEE_COLLECTION",
    "FEE_COLLECTION_SAGA",
    "FEE_ENTRY",
    "FEE_INCOME",
    "TAX_PAYABLE",
    "FeeCall",
    "FeeRequest",
    "FeeState",
]
