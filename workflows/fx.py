"""The FX transfer saga's workflow, run by the generic saga runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaOutcome, SagaWorkflow
    from sagas.fx import FX_TRANSFER_SAGA


@workflow.defn(name="FxTransferWorkflow")
class FxTransferWorkflow(SagaWorkflow):
    definition = FX_TRANSFER_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
