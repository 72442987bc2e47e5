"""The determinism guard: recorded histories replay against today's workflow code.

Refresh the histories only for a deliberate change: `python -m tooling.record_histories`
(see docs/determinism.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.workflow import NondeterminismError

from tests.fixtures_temporal import workflow_name
from tests.replay._altered import (
    ExtraStepTransferWorkflow,
    NoSettleTransferWorkflow,
    PatchedTimerTransferWorkflow,
    TimerTransferWorkflow,
)
from tests.replay.scenarios import HISTORIES, SCENARIOS, history_key
from workflows import ALL_WORKFLOWS

RECORDED = sorted(HISTORIES.glob("*.json"))


def load(path: Path) -> WorkflowHistory:
    """A recorded history; its file is named after its workflow id (plus any archive suffix)."""
    return WorkflowHistory.from_json(path.stem, path.read_text())


def workflow_type(history: WorkflowHistory) -> str:
    started = history.events[0].workflow_execution_started_event_attributes
    return started.workflow_type.name


def replayer(workflows: list[type]) -> Replayer:
    return Replayer(workflows=workflows, data_converter=pydantic_data_converter)


def test_every_workflow_type_has_a_history_in_every_outcome() -> None:
    recorded = {(workflow_type(load(path)), path.stem) for path in RECORDED}
    expected = {
        (
            workflow_name(saga),
            f"{saga.definition.saga_type}-{history_key(workflow_name(saga), s.outcome)}",
        )
        for saga in ALL_WORKFLOWS
        for s in SCENARIOS
    }

    assert expected <= recorded


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.stem)
async def test_a_recorded_history_replays_without_nondeterminism(path: Path) -> None:
    result = await replayer(list(ALL_WORKFLOWS)).replay_workflow(load(path))

    assert result.replay_failure is None


@pytest.mark.parametrize(
    "altered",
    [ExtraStepTransferWorkflow, NoSettleTransferWorkflow, TimerTransferWorkflow],
    ids=["extra-first-step", "last-step-dropped", "unpatched-timer"],
)
async def test_a_change_that_breaks_replay_is_caught(altered: type) -> None:
    history = load(HISTORIES / "transfer-replay-TransferWorkflow-completed.json")

    with pytest.raises(NondeterminismError):
        await replayer([altered]).replay_workflow(history)


@pytest.mark.parametrize(
    "path",
    [path for path in RECORDED if workflow_type(load(path)) == "TransferWorkflow"],
    ids=lambda path: path.stem,
)
async def test_the_same_change_behind_workflow_patched_replays(path: Path) -> None:
    result = await replayer([PatchedTimerTransferWorkflow]).replay_workflow(load(path))

    assert result.replay_failure is None
