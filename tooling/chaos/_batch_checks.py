"""The check of the payout batches after a chaos run: each ended COMPLETED and lists every item
as that item's own saga ended."""

from __future__ import annotations

from collections.abc import Mapping

from sagas.engine import BatchOutcome, SagaStatus
from sagas.payouts import PAYOUT_BATCH
from tooling.chaos._check import Check
from tooling.chaos._plan import ChaosPlan, PlannedSaga, batch_items


def _batch_wrong(
    batch: PlannedSaga, statuses: Mapping[str, str], outcome: BatchOutcome | None
) -> bool:
    if statuses.get(batch.saga_id) != SagaStatus.COMPLETED.value or outcome is None:
        return True
    if outcome.status is not SagaStatus.COMPLETED:
        return True
    planned = [(n, item.saga_id) for n, item in enumerate(batch_items(batch), start=1)]
    listed = [(item.number, item.saga_id) for item in outcome.items]
    if listed != planned:
        return True
    return any(statuses.get(item.saga_id) != item.status.value for item in outcome.items)


def batches(
    plan: ChaosPlan, statuses: Mapping[str, str], outcomes: Mapping[str, BatchOutcome]
) -> Check:
    """`outcomes` by batch saga id; `statuses` by saga id, the batches' items among them."""
    planned = plan.of_type(PAYOUT_BATCH)
    wrong = [b.saga_id for b in planned if _batch_wrong(b, statuses, outcomes.get(b.saga_id))]
    items = sum(len(batch_items(b)) for b in planned)
    detail = f"{len(planned)} batches of {items} items, {len(wrong)} wrong" + (
        f", first: {sorted(wrong)[0]}" if wrong else ""
    )
    return Check(
        "l) every batch COMPLETED, listing each item as the item's saga ended",
        not wrong,
        detail,
    )
