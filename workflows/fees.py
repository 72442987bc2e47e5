"""The fee-collection saga's workflow, run by the generic saga runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaOutcome, SagaWorkflow
    from sagas.fees import FEE_COLLECTION_SAGA


@workflow.defn(name="FeeCollectionWorkflow")
class FeeCollectionWorkflow(SagaWorkflow):
    definition = FEE_COLLECTION_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
