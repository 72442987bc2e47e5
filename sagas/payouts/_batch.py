"""The payout batch: a payment file's payouts, each its own `payout` saga."""

from __future__ import annotations

from sagas.engine import BatchDefinition, BatchRequest
from sagas.payouts._definition import EXTERNAL_PAYOUT_SAGA, PAYOUT_WORKFLOW
from sagas.payouts._request import PayoutRequest

PAYOUT_BATCH = "payout-batch"
BATCH_CONCURRENCY = 10
"""Payouts of one batch at the provider at once, unless the request asks otherwise."""
BATCH_ITEMS_PER_RUN = 100
"""Payouts one workflow run starts; a larger batch continues as new, its history stays small."""


class PayoutBatchRequest(BatchRequest):
    """`items`: payout requests without idempotency_key; item n is the saga
    `payout-<batch key>-<n>`."""

    item_request_type = PayoutRequest


PAYOUT_BATCH_DEFINITION = BatchDefinition(
    saga_type=PAYOUT_BATCH,
    request_type=PayoutBatchRequest,
    item_saga=EXTERNAL_PAYOUT_SAGA,
    item_workflow=PAYOUT_WORKFLOW,
    concurrency=BATCH_CONCURRENCY,
    items_per_run=BATCH_ITEMS_PER_RUN,
)
