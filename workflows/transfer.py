"""TransferWorkflow: the transfer saga, run by the generic saga runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow
    from sagas.transfer import TRANSFER_SAGA


@workflow.defn(name="TransferWorkflow")
class TransferWorkflow(SagaWorkflow):
    definition = TRANSFER_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
