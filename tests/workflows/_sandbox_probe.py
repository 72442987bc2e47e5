"""A workflow that reads the wall clock: the sandbox must refuse it. Imports nothing else, so the
sandbox can re-import it."""

from datetime import datetime

from temporalio import workflow
from temporalio.worker.workflow_sandbox import RestrictedWorkflowAccessError


@workflow.defn(name="SandboxProbe", failure_exception_types=[RestrictedWorkflowAccessError])
class SandboxProbe:
    @workflow.run
    async def run(self) -> str:
        return datetime.now().isoformat()
