"""The FX transfer's determinism guard, from the testing kit.

Recorded with `python -m sagas.testing record tests.fx.scenario:FX_SCENARIO tests/fx/histories`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sagas.testing import ReplayGuard
from tests.fx.scenario import FX_SCENARIO

GUARD = ReplayGuard(FX_SCENARIO, Path(__file__).parent / "histories")


def test_every_outcome_is_recorded() -> None:
    assert GUARD.missing() == []


@pytest.mark.parametrize("path", GUARD.histories(), ids=lambda path: path.stem)
async def test_recorded_history_replays(path: Path) -> None:
    await GUARD.replay(path)
