"""A service that imports the client pays for the client only: not for the CLI's libraries."""

from __future__ import annotations

import subprocess
import sys

import pytest

CLI_LIBRARIES = ("typer", "rich", "click")


@pytest.mark.parametrize("module", ["sagas.client", "sagas.worker", "sagas.verify", "sagas"])
def test_importing_a_library_package_loads_no_cli_library(module: str) -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, {module}; print(' '.join(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()

    assert [name for name in CLI_LIBRARIES if name in loaded] == []
    assert [name for name in loaded if name == "sagas.cli" or name.startswith("sagas.cli.")] == []
