"""A payout batch type of the tests' own, continuing as new every two items."""

from __future__ import annotations

from dataclasses import replace

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaBatchWorkflow, SagaOutcome
    from sagas.payouts import EXTERNAL_PAYOUT, PAYOUT_BATCH_DEFINITION
    from sagas.registry import SagaType

SMALL_BATCH_DEFINITION = replace(
    PAYOUT_BATCH_DEFINITION, saga_type="small-payout-batch", concurrency=2, items_per_run=2
)


@workflow.defn(name="SmallPayoutBatchWorkflow")
class SmallPayoutBatchWorkflow(SagaBatchWorkflow):
    batch = SMALL_BATCH_DEFINITION

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_batch(*inputs)


SMALL_BATCH_TYPE = SagaType(
    definition=SMALL_BATCH_DEFINITION.saga,
    workflows={"activity": SmallPayoutBatchWorkflow},
    activities=lambda context: [],
    item_saga_type=EXTERNAL_PAYOUT,
)
