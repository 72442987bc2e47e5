"""Retry specs from configuration: fixed for a saga when it starts, recorded in its first
snapshot, and a change of the file applies to sagas started afterwards."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from temporalio.testing import WorkflowEnvironment

from sagas import Phase, SagaStatus
from sagas.transfer import TRANSFER_SAGA
from tests.fixtures_temporal import new_task_queue, worker_for
from tests.workflows._fakes import FakeSteps
from tests.workflows.test_saga_runtime import outcome_of, request, status_of
from workflows import TransferWorkflow


def configure(path: Path, credit_action: dict[str, Any]) -> None:
    path.write_text(json.dumps({"transfer": {"credit": {"action": credit_action}}}))


async def run_saga(env: WorkflowEnvironment, path: Path | str) -> tuple[FakeSteps, Any, Any]:
    steps = FakeSteps(transient={"transfer.credit": lambda attempt: True})
    queue = new_task_queue()
    worker = worker_for(
        env,
        workflows=[TransferWorkflow],
        activities=steps.all(),
        task_queue=queue,
        retry_specs=str(path),
    )
    async with worker:
        req = request()
        handle = await env.client.start_workflow(
            "TransferWorkflow", req, id=f"transfer-{req.idempotency_key}", task_queue=queue
        )
        outcome = await outcome_of(handle)
        view = await status_of(handle)
    return steps, outcome, view


def gaps_s(steps: FakeSteps) -> list[int]:
    credit = steps.of("transfer.credit")
    return [
        round((later.started_at - earlier.started_at).total_seconds())
        for earlier, later in itertools.pairwise(credit)
    ]


async def test_a_configured_spec_is_used_and_recorded_and_a_change_applies_to_later_sagas(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    path = tmp_path / "retry-specs.json"
    configure(path, {"temporary": {"first_interval": "5s", "multiplier": 3, "max_retries": 2}})

    steps, outcome, view = await run_saga(time_skipping_env, path)

    assert gaps_s(steps) == [5, 15]
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.attempts == 3
    first, *later = view.snapshots
    assert first.retry_specs is not None
    recorded = first.retry_specs.of("credit", Phase.ACTION)
    assert (recorded.max_retries, recorded.multiplier) == (2, 3)
    assert first.retry_specs.of("settle", Phase.ACTION) == TRANSFER_SAGA.step("settle").action_retry
    assert all(snapshot.retry_specs is None for snapshot in later)

    configure(path, {"temporary": {"first_interval": "2s", "max_retries": 1}})
    steps, outcome, view = await run_saga(time_skipping_env, path)

    assert gaps_s(steps) == [2]
    assert view.snapshots[0].retry_specs is not None
    assert view.snapshots[0].retry_specs.of("credit", Phase.ACTION).max_retries == 1


async def test_without_configuration_the_code_specs_are_recorded(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps, _outcome, view = await run_saga(time_skipping_env, "")

    assert gaps_s(steps) == [1, 2, 4]
    specs = view.snapshots[0].retry_specs
    assert specs is not None
    assert all(
        specs.of(step.name, Phase.ACTION) == step.action_retry
        and specs.of(step.name, Phase.COMPENSATION) == step.compensation_retry
        for step in TRANSFER_SAGA.steps
    )
