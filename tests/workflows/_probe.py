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


CLASS_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=4)
"""Temporary faults: 1, 2, 4, 8 s; instant faults keep the default, 100, 200, 400 ms."""
CLASS_PROBE_SAGA = dataclasses.replace(
    TRANSFER_SAGA,
    saga_type="class-probe",
    steps=tuple(dataclasses.replace(s, action_retry=CLASS_RETRY) for s in TRANSFER_SAGA.steps),
)


@workflow.defn(name="ClassProbeWorkflow")
class ClassProbeWorkflow(SagaWorkflow):
    """A transfer whose actions retry temporary and instant faults apart."""

    definition = CLASS_PROBE_SAGA

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


@workflow.defn(name="ClassProbeLocalStepsWorkflow")
class ClassProbeLocalStepsWorkflow(SagaWorkflow):
    """The class probe with every step a local activity."""

    definition = CLASS_PROBE_SAGA.with_local_steps()

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


PROBES = [ProbeTransferWorkflow, ProbeLocalStepsWorkflow]
CLASS_PROBES = [ClassProbeWorkflow, ClassProbeLocalStepsWorkflow]
