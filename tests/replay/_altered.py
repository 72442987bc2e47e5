"""Deliberately altered copies of TransferWorkflow, registered under its name, for the guard.

Each runs differently from the recorded histories: replaying them must be refused, unless the
change is behind workflow.patched().
"""

import dataclasses

from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from sagas import SagaOutcome, SagaWorkflow
    from sagas.transfer import TRANSFER_SAGA

_AML_CHECK = dataclasses.replace(
    TRANSFER_SAGA.steps[0],
    name="aml-check",
    action="transfer.aml-check",
    compensation=None,
)
WITH_EXTRA_STEP = dataclasses.replace(TRANSFER_SAGA, steps=(_AML_CHECK, *TRANSFER_SAGA.steps))
WITHOUT_RELEASE = dataclasses.replace(TRANSFER_SAGA, steps=TRANSFER_SAGA.steps[:-1])
ANNOUNCE_PATCH = "announce-transfer"


@workflow.defn(name="TransferWorkflow")
class ExtraStepTransferWorkflow(SagaWorkflow):
    """A new first step: an anti-money-laundering check before the hold."""

    definition = WITH_EXTRA_STEP

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


@workflow.defn(name="TransferWorkflow")
class NoReleaseTransferWorkflow(SagaWorkflow):
    """The last step, release, dropped: the credit would stay pending."""

    definition = WITHOUT_RELEASE

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        return await self.run_saga(request)


@workflow.defn(name="TransferWorkflow")
class TimerTransferWorkflow(SagaWorkflow):
    """A pause before the saga starts, not guarded by a patch."""

    definition = TRANSFER_SAGA

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        await workflow.sleep(1)
        return await self.run_saga(request)


@workflow.defn(name="TransferWorkflow")
class PatchedTimerTransferWorkflow(SagaWorkflow):
    """The same pause behind workflow.patched(): old histories take the old path."""

    definition = TRANSFER_SAGA

    @workflow.run
    async def run(self, request: RawValue) -> SagaOutcome:
        if workflow.patched(ANNOUNCE_PATCH):
            await workflow.sleep(1)
        return await self.run_saga(request)
