from __future__ import annotations

import pytest
from temporalio.testing import ActivityEnvironment

from tests.unit._guard import RecordingSnapshotStore


@pytest.fixture
def store() -> RecordingSnapshotStore:
    return RecordingSnapshotStore()


@pytest.fixture
def activity_env() -> ActivityEnvironment:
    return ActivityEnvironment()
