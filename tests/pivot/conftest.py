from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.pivot.rig import Rig, rig_fixture


@pytest.fixture
async def rig(
    request: pytest.FixtureRequest, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[Rig]:
    """A worker running the test payout, its faults from the test's `rig` parameter."""
    async for made in rig_fixture(request, time_skipping_env, tmp_path):
        yield made
