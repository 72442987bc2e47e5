"""The payout batch's workflow, run by the generic batch runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaBatchWorkflow, SagaOutcome
    from sagas.payouts import PAYOUT_BATCH_DEFINITION


@workflow.defn(name="PayoutBatchWorkflow")
class PayoutBatchWorkflow(SagaBatchWorkflow):
    batch = PAYOUT_BATCH_DEFINITION

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_batch(*inputs)
