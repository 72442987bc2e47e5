"""The external payout's workflow, run by the generic saga runtime."""

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SagaOutcome, SagaWorkflow
    from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_WORKFLOW


@workflow.defn(name=PAYOUT_WORKFLOW)
class ExternalPayoutWorkflow(SagaWorkflow):
    definition = EXTERNAL_PAYOUT_SAGA

    @workflow.run
    async def run(self, *inputs: RawValue) -> SagaOutcome:
        return await self.run_saga(*inputs)
