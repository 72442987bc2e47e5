"""The kit's recorder writes one saga type's histories and never touches another type's."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from sagas.testing import ReplayGuard
from tests.escrow.scenario import ESCROW_SCENARIO
from tests.replay.test_replay import HISTORIES


def digests(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.glob("*.json"))
    }


async def test_recording_one_type_leaves_every_other_types_files_byte_identical(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    shared = tmp_path / "histories"
    shutil.copytree(HISTORIES, shared)
    (shared / "escrow-replay-EscrowWorkflow-completed.json").write_text("stale\n")
    before = digests(shared)
    escrow = ReplayGuard(ESCROW_SCENARIO, shared)

    written = await escrow.record(dev_env)

    after = digests(shared)
    names = {path.name for path in written}
    others = before.keys() - names
    assert sorted(written) == sorted(escrow.expected())
    assert len(others) == 12
    assert all(name.startswith("transfer-") for name in others)
    assert {name: after[name] for name in others} == {name: before[name] for name in others}
    assert after.keys() == before.keys() | names
    stale = "escrow-replay-EscrowWorkflow-completed.json"
    assert after[stale] != before[stale]
    for path in written:
        await escrow.replay(path)
