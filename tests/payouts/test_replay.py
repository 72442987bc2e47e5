"""The external payout's determinism guard, from the testing kit.

Recorded with `python -m tests.payouts.record` (the time-skipping server and the provider
simulator: `settle` waits an hour for a callback no recording sends).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.testing import ReplayGuard
from tests.payouts.scenario import PAYOUT_SCENARIO

GUARD = ReplayGuard(PAYOUT_SCENARIO, Path(__file__).parent / "histories")


def test_every_outcome_is_recorded() -> None:
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_recorded_history_replays(path: Path) -> None:
    await GUARD.replay(path)
