"""The embedded dev server runs with its queue readers unthrottled (see DEV_SERVER_DYNAMIC_CONFIG);
what that is worth is measured by the benchmark, not asserted here."""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from sagas.servers import DEV_SERVER_DYNAMIC_CONFIG, dev_server_args


def _temporal_children() -> list[list[str]]:
    """The command lines of this process's `temporal` children (the dev servers it started)."""
    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for child in (task / "children").read_text().split():
            if Path(f"/proc/{child}/comm").read_text().strip() == "temporal":
                found.append(Path(f"/proc/{child}/cmdline").read_bytes().decode().split("\0"))
    return found


def test_the_args_set_every_queue_reader_of_the_config() -> None:
    args = dev_server_args()
    assert args[0::2] == ["--dynamic-config-value"] * len(DEV_SERVER_DYNAMIC_CONFIG)
    assert args[1::2] == [f"{key}={value}" for key, value in DEV_SERVER_DYNAMIC_CONFIG]
    assert {key for key, _ in DEV_SERVER_DYNAMIC_CONFIG} == {
        "history.transferProcessorMaxPollRPS",
        "history.timerProcessorMaxPollRPS",
        "history.visibilityProcessorMaxPollRPS",
    }
    assert all(value > 20 for _, value in DEV_SERVER_DYNAMIC_CONFIG)  # above the server default


async def test_the_kit_dev_server_runs_with_the_config(dev_env: WorkflowEnvironment) -> None:
    assert await dev_env.client.service_client.check_health()
    servers = [cmdline for cmdline in _temporal_children() if "start-dev" in cmdline]
    assert servers, "no dev server process found under this test process"
    for cmdline in servers:
        for key, value in DEV_SERVER_DYNAMIC_CONFIG:
            setting = f"{key}={value}"
            assert setting in cmdline, f"the dev server runs without {setting}"
            assert cmdline[cmdline.index(setting) - 1] == "--dynamic-config-value"
