"""The payout's determinism guard, from the testing kit, and the payout batch's.

Recorded with `python -m tests.payouts.record` (the time-skipping server and the provider
simulator: `settle` waits an hour for a callback no recording sends).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.testing import ReplayGuard
from tests.payouts.batch_histories import batch_histories, replay_batch
from tests.payouts.scenario import PAYOUT_SCENARIO

HISTORIES = Path(__file__).parent / "histories"
GUARD = ReplayGuard(PAYOUT_SCENARIO, HISTORIES)


def test_every_outcome_is_recorded() -> None:
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_recorded_history_replays(path: Path) -> None:
    await GUARD.replay(path)


def test_the_batches_are_recorded_with_a_continued_run() -> None:
    assert [path.stem for path in batch_histories(HISTORIES)] == [
        "payout-batch-replay-run1",
        "small-payout-batch-replay-run1",
        "small-payout-batch-replay-run2",
    ]


@pytest.mark.parametrize("path", batch_histories(HISTORIES), ids=lambda path: path.stem)
async def test_recorded_batch_history_replays(path: Path) -> None:
    await replay_batch(path)
