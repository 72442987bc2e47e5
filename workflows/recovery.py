"""The recovery of a killed saga, run by the engine's recovery base (sagas.engine)."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from sagas.engine import RECOVERY_WORKFLOW, KilledSaga, SagaOutcome, SagaRecoveryBase


@workflow.defn(name=RECOVERY_WORKFLOW)
class SagaRecoveryWorkflow(SagaRecoveryBase):
    @workflow.run
    async def run(self, killed: KilledSaga) -> SagaOutcome:
        return await self.recover(killed)
