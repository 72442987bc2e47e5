"""The test saga's workflow: the engine's runtime on SETTLE_SAGA."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow
    from tests.events.saga import SETTLE_SAGA


@workflow.defn(name="TestSettleWorkflow")
class SettleWorkflow(SagaWorkflow):
    definition = SETTLE_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
