"""The transfer's determinism guard, from the testing kit: its recorded histories replay against
today's workflow code.

Refresh the histories only for a deliberate change (docs/determinism.md):
`python -m sagas.testing record tests.scenarios:TRANSFER_SCENARIO tests/replay/histories`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.workflow import NondeterminismError

from sagas.testing import ReplayGuard, load_history
from tests.replay._altered import (
    ExtraStepTransferWorkflow,
    NoReleaseTransferWorkflow,
    PatchedTimerTransferWorkflow,
    TimerTransferWorkflow,
)
from tests.scenarios import TRANSFER_SCENARIO

HISTORIES = Path(__file__).parent / "histories"
GUARD = ReplayGuard(TRANSFER_SCENARIO, HISTORIES)


def workflow_type(history: WorkflowHistory) -> str:
    started = history.events[0].workflow_execution_started_event_attributes
    return started.workflow_type.name


def replayer(workflows: list[type]) -> Replayer:
    return Replayer(workflows=workflows, data_converter=pydantic_data_converter)


def test_every_workflow_type_has_a_history_in_every_outcome() -> None:
    assert len(GUARD.expected()) == 12  # two workflow types, six outcomes
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_a_recorded_history_replays_without_nondeterminism(path: Path) -> None:
    await GUARD.replay(path)


@pytest.mark.parametrize(
    "altered",
    [ExtraStepTransferWorkflow, NoReleaseTransferWorkflow, TimerTransferWorkflow],
    ids=["extra-first-step", "last-step-dropped", "unpatched-timer"],
)
async def test_a_change_that_breaks_replay_is_caught(altered: type) -> None:
    history = load_history(HISTORIES / "transfer-replay-TransferWorkflow-completed.json")

    with pytest.raises(NondeterminismError):
        await replayer([altered]).replay_workflow(history)


@pytest.mark.parametrize(
    "path",
    [path for path in GUARD.histories() if workflow_type(load_history(path)) == "TransferWorkflow"],
    ids=lambda path: path.stem,
)
async def test_the_same_change_behind_workflow_patched_replays(path: Path) -> None:
    result = await replayer([PatchedTimerTransferWorkflow]).replay_workflow(load_history(path))

    assert result.replay_failure is None
