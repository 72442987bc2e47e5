"""Retry specs from configuration: fixed for a saga when it starts, recorded in its first
snapshot; the file is read once per worker, so a change applies to workers built afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from sagas import Phase, SagaStatus
from sagas.engine import RETRY_SPECS_ACTIVITY, WORKER_SPECS_PATCH, RetrySpecsSource
from sagas.transfer import TRANSFER_SAGA
from tests.fixtures_temporal import new_task_queue, worker_for
from tests.workflows._fakes import FakeSteps
from tests.workflows.test_saga_runtime import outcome_of, request, status_of
from workflows import TransferWorkflow


def configure(path: Path, credit_action: dict[str, Any]) -> None:
    path.write_text(json.dumps({"transfer": {"credit": {"action": credit_action}}}))


async def run_saga(env: WorkflowEnvironment, path: Path | str) -> tuple[FakeSteps, Any, Any]:
    steps, outcome, view, _history = await run_saga_with_history(env, path)
    return steps, outcome, view


async def run_saga_with_history(
    env: WorkflowEnvironment, path: Path | str
) -> tuple[FakeSteps, Any, Any, WorkflowHistory]:
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
        history = await handle.fetch_history()
    return steps, outcome, view, history


async def test_a_configured_spec_is_used_and_recorded_and_a_change_applies_to_later_workers(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    path = tmp_path / "retry-specs.json"
    configure(path, {"temporary": {"first_interval": "5s", "multiplier": 3, "max_retries": 2}})

    steps, outcome, view = await run_saga(time_skipping_env, path)

    assert steps.backed_off("transfer.credit", [5, 15])
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

    assert steps.backed_off("transfer.credit", [2])
    assert view.snapshots[0].retry_specs is not None
    assert view.snapshots[0].retry_specs.of("credit", Phase.ACTION).max_retries == 1


async def test_a_running_worker_keeps_the_specs_it_read_when_it_was_built(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    path = tmp_path / "retry-specs.json"
    configure(path, {"temporary": {"first_interval": "5s", "multiplier": 3, "max_retries": 2}})
    steps = FakeSteps(transient={"transfer.credit": lambda attempt: True})
    queue = new_task_queue()
    worker = worker_for(
        time_skipping_env,
        workflows=[TransferWorkflow],
        activities=steps.all(),
        task_queue=queue,
        retry_specs=str(path),
    )
    configure(path, {"temporary": {"first_interval": "2s", "max_retries": 1}})

    async with worker:
        req = request()
        handle = await time_skipping_env.client.start_workflow(
            "TransferWorkflow", req, id=f"transfer-{req.idempotency_key}", task_queue=queue
        )
        outcome = await outcome_of(handle)

    assert steps.backed_off("transfer.credit", [5, 15])
    assert outcome.failure is not None
    assert outcome.failure.attempts == 3


async def test_without_configuration_the_code_specs_are_recorded(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    steps, _outcome, view = await run_saga(time_skipping_env, "")

    assert steps.backed_off("transfer.credit", [1, 2, 4])
    specs = view.snapshots[0].retry_specs
    assert specs is not None
    assert all(
        specs.of(step.name, Phase.ACTION) == step.action_retry
        and specs.of(step.name, Phase.COMPENSATION) == step.compensation_retry
        for step in TRANSFER_SAGA.steps
    )


def markers(history: WorkflowHistory) -> list[str]:
    """Each marker of the history that names a patch id or an activity type of interest."""
    found = []
    for event in history.events:
        if event.event_type != EventType.EVENT_TYPE_MARKER_RECORDED:
            continue
        attributes = event.marker_recorded_event_attributes
        recorded = attributes.details.values()
        details = b"".join(payload.data for entry in recorded for payload in entry.payloads)
        for name in (WORKER_SPECS_PATCH, RETRY_SPECS_ACTIVITY):
            if name.encode() in details:
                found.append(f"{attributes.marker_name}:{name}")
    return found


def upserts(history: WorkflowHistory) -> int:
    kind = EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
    return sum(event.event_type == kind for event in history.events)


async def test_a_worker_without_a_file_records_nothing_and_one_with_a_file_records_asking(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    path = tmp_path / "retry-specs.json"
    configure(path, {"temporary": {"max_retries": 1}})

    *_, unconfigured = await run_saga_with_history(time_skipping_env, "")
    *_, configured = await run_saga_with_history(time_skipping_env, path)

    assert markers(unconfigured) == []
    assert markers(configured) == [
        f"core_patch:{WORKER_SPECS_PATCH}",
        f"core_local_activity:{RETRY_SPECS_ACTIVITY}",
    ]
    # The marker brings the SDK's TemporalChangeVersion upsert; the default path has neither.
    assert upserts(configured) == upserts(unconfigured) + 1


async def test_the_history_not_the_replaying_worker_decides_where_the_specs_come_from(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    path = tmp_path / "retry-specs.json"
    configure(path, {"temporary": {"first_interval": "5s", "max_retries": 2}})
    *_, unconfigured = await run_saga_with_history(time_skipping_env, "")
    *_, configured = await run_saga_with_history(time_skipping_env, path)

    for history in (unconfigured, configured):
        for has_file in (True, False):
            replayer = Replayer(
                workflows=[TransferWorkflow],
                data_converter=pydantic_data_converter,
                interceptors=[RetrySpecsSource(configured=has_file)],
            )
            result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
            assert result.replay_failure is None, (has_file, result.replay_failure)
