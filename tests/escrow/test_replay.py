"""The escrow's determinism guard, from the testing kit alone.

Recorded with `python -m sagas.testing record tests.escrow.scenario:ESCROW_SCENARIO
tests/escrow/histories`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.testing import ReplayGuard
from tests.escrow.scenario import ESCROW_SCENARIO

GUARD = ReplayGuard(ESCROW_SCENARIO, Path(__file__).parent / "histories")


def test_every_outcome_is_recorded() -> None:
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_recorded_history_replays(path: Path) -> None:
    await GUARD.replay(path)
