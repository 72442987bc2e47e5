"""The transfer saga with compensations that give up after one quick retry, to park fast."""

import dataclasses

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow, retry_spec
    from sagas.transfer import TRANSFER_SAGA

QUICK = retry_spec(first_interval_s="0.1", multiplier=1, max_retries=1)
FAST_SAGA = dataclasses.replace(
    TRANSFER_SAGA,
    steps=tuple(
        dataclasses.replace(s, action_retry=QUICK, compensation_retry=QUICK)
        for s in TRANSFER_SAGA.steps
    ),
)


@workflow.defn(name="FastTransferWorkflow")
class FastTransferWorkflow(SagaWorkflow):
    definition = FAST_SAGA

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)
