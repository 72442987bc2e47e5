"""The escrow's workflow: the engine's runtime on ESCROW_SAGA."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow
    from tests.escrow.saga import ESCROW_SAGA


@workflow.defn(name="EscrowWorkflow")
class EscrowWorkflow(SagaWorkflow):
    definition = ESCROW_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
