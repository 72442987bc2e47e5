"""A missing Prometheus binary skips a test on a developer's machine and fails it in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.observability.prometheus_binaries import binary


def test_a_binary_on_path_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "promtool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert binary("promtool") == str(tool)


def test_a_missing_binary_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-such-prometheus-tool"):
        binary("no-such-prometheus-tool")


def test_a_missing_binary_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"\.ci/run installs Debian's `prometheus`"):
        binary("no-such-prometheus-tool")
