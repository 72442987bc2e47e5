"""The end-of-day sweep saga's workflow, run by the generic saga runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaOutcome, SagaWorkflow
    from sagas.sweep import EOD_SWEEP_SAGA


@workflow.defn(name="EodSweepWorkflow")
class EodSweepWorkflow(SagaWorkflow):
    definition = EOD_SWEEP_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
