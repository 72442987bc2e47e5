"""The test payout's workflow: the engine's runtime on PAYOUT_SAGA."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow
    from tests.pivot.saga import PAYOUT_SAGA


@workflow.defn(name="PivotPayoutWorkflow")
class PivotPayoutWorkflow(SagaWorkflow):
    definition = PAYOUT_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
