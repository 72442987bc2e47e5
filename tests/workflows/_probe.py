"""A transfer saga whose actions retry with F=10 s, M=2, C=10, for timing the retry spec."""

import dataclasses

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow, retry_spec
    from sagas.transfer import TRANSFER_SAGA

PROBE_RETRY = retry_spec(first_interval_s=10, multiplier=2, max_retries=10)
PROBE_SAGA = dataclasses.replace(
    TRANSFER_SAGA,
    saga_type="probe",
    steps=tuple(dataclasses.replace(s, action_retry=PROBE_RETRY) for s in TRANSFER_SAGA.steps),
)


@workflow.defn(name="ProbeTransferWorkflow")
class ProbeTransferWorkflow(SagaWorkflow):
    definition = PROBE_SAGA

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


@workflow.defn(name="ProbeLocalStepsWorkflow")
class ProbeLocalStepsWorkflow(SagaWorkflow):
    """The probe saga with every step a local activity."""

    definition = PROBE_SAGA.with_local_steps()

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


PROBES = [ProbeTransferWorkflow, ProbeLocalStepsWorkflow]
