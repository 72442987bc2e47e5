"""The transfer saga's workflows, run by the generic saga runtime: one per step mode."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaOutcome, SagaWorkflow
    from sagas.transfer import TRANSFER_SAGA


@workflow.defn(name="TransferWorkflow")
class TransferWorkflow(SagaWorkflow):
    """Each step a regular activity: every attempt shows in the history."""

    definition = TRANSFER_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)


@workflow.defn(name="TransferLocalStepsWorkflow")
class TransferLocalStepsWorkflow(SagaWorkflow):
    """Each step a local activity inside the workflow task: a third of the history and no task
    round trip per step; each attempt shows as a marker, each backoff as a timer."""

    definition = TRANSFER_SAGA.with_local_steps()

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
