"""The end-of-day sweep's determinism guard, from the testing kit.

Recorded with `python -m sagas.testing record tests.sweep.scenario:SWEEP_SCENARIO
tests/sweep/histories`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.testing import ReplayGuard
from tests.sweep.scenario import SWEEP_SCENARIO

GUARD = ReplayGuard(SWEEP_SCENARIO, Path(__file__).parent / "histories")


def test_every_outcome_is_recorded() -> None:
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_recorded_history_replays(path: Path) -> None:
    await GUARD.replay(path)
