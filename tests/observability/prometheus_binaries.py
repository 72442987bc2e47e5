"""Prometheus's own binaries (`promtool`, `prometheus`) for tests that check the deploy files
with them: skipped on a developer's machine that lacks them, a failure in CI, which installs
them (`.ci/run` installs Debian's `prometheus` package)."""

from __future__ import annotations

import os
import shutil

import pytest

# Debian's package puts its binaries there, which a restricted PATH may leave out.
FALLBACK_PATH = "/usr/bin"


def binary(name: str) -> str:
    """The path of the Prometheus binary `name` (`promtool`, `prometheus`): from PATH, else
    /usr/bin. Absent: the test is skipped, or fails when CI=true."""
    found = shutil.which(name) or shutil.which(name, path=FALLBACK_PATH)
    if found:
        return found
    message = f"{name} is not installed (Debian's package `prometheus` has it)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; .ci/run installs Debian's `prometheus` package before the tests")
    pytest.skip(message)
