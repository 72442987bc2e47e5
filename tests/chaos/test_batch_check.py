"""The batch check against made-up ends, without running anything."""

from __future__ import annotations

from sagas.engine import BatchItemOutcome, BatchItemStatus, BatchOutcome, SagaStatus
from sagas.payouts import PAYOUT_BATCH
from tooling.chaos import ChaosConfig, ChaosPlan, make_plan
from tooling.chaos._batch_checks import batches
from tooling.chaos._plan import batch_items


def plan_of_one_batch() -> ChaosPlan:
    config = ChaosConfig(
        transfers=3,
        fees=0,
        fx_transfers=0,
        payouts=0,
        batches=1,
        sweeps=0,
        kills=0,
        restarts=0,
    )
    return make_plan(config)


def ended_as(plan: ChaosPlan, status: SagaStatus) -> tuple[dict[str, str], dict[str, BatchOutcome]]:
    (batch,) = plan.of_type(PAYOUT_BATCH)
    items = batch_items(batch)
    outcome = BatchOutcome(
        saga_id=batch.saga_id,
        saga_type=PAYOUT_BATCH,
        status=SagaStatus.COMPLETED,
        items=[
            BatchItemOutcome(number=n, saga_id=item.saga_id, status=BatchItemStatus(status.value))
            for n, item in enumerate(items, start=1)
        ],
    )
    statuses = {batch.saga_id: SagaStatus.COMPLETED.value}
    statuses |= {item.saga_id: status.value for item in items}
    return statuses, {batch.saga_id: outcome}


def test_items_are_payouts_keyed_by_the_batch_key_and_their_number() -> None:
    plan = plan_of_one_batch()
    (batch,) = plan.of_type(PAYOUT_BATCH)

    items = batch_items(batch)

    assert 2 <= len(items) <= 5
    assert [i.saga_id for i in items] == [
        f"payout-{batch.key}-{n}" for n in range(1, len(items) + 1)
    ]
    assert plan.payouts() == items
    assert len(plan.followed()) == len(plan.sagas) + len(items)


def test_a_batch_listing_each_item_as_it_ended_passes() -> None:
    plan = plan_of_one_batch()
    statuses, outcomes = ended_as(plan, SagaStatus.COMPLETED)

    assert batches(plan, statuses, outcomes).ok


def test_an_item_listed_otherwise_than_it_ended_fails() -> None:
    plan = plan_of_one_batch()
    statuses, outcomes = ended_as(plan, SagaStatus.COMPLETED)
    first = batch_items(plan.of_type(PAYOUT_BATCH)[0])[0]
    statuses[first.saga_id] = SagaStatus.COMPENSATED.value

    assert not batches(plan, statuses, outcomes).ok


def test_a_batch_missing_an_item_or_its_outcome_fails() -> None:
    plan = plan_of_one_batch()
    statuses, outcomes = ended_as(plan, SagaStatus.COMPENSATED)
    (batch_id,) = outcomes
    short = outcomes[batch_id].model_copy(update={"items": outcomes[batch_id].items[:-1]})

    assert not batches(plan, statuses, {batch_id: short}).ok
    assert not batches(plan, statuses, {}).ok
