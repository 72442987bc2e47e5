"""saga_workflow_runner compiles the sandbox's glue once: the sandbox still refuses what it must."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.app import saga_workflow_runner
from tests.fixtures_temporal import new_task_queue
from tests.workflows._sandbox_probe import SandboxProbe


async def test_the_sandbox_still_refuses_the_wall_clock(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    queue = new_task_queue()
    runner = saga_workflow_runner()
    async with Worker(
        time_skipping_env.client, task_queue=queue, workflows=[SandboxProbe], workflow_runner=runner
    ):
        with pytest.raises(WorkflowFailureError) as failed:
            await time_skipping_env.client.execute_workflow(
                SandboxProbe.run, id=f"probe-{queue}", task_queue=queue
            )
    assert "RestrictedWorkflowAccessError" in repr(failed.value.cause)
