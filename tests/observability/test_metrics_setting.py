"""FUNDSAGA_METRICS_ADDRESS: empty by default, a host:port when set, refused otherwise; an
address already taken is refused with the variable's name."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from sagas import InvalidRequestError, load_settings
from sagas.telemetry import metrics_runtime, prometheus_runtime


@pytest.fixture(autouse=True)
def no_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FUNDSAGA_METRICS_ADDRESS", raising=False)


def test_metrics_are_off_by_default() -> None:
    assert metrics_runtime(load_settings()) is None


@pytest.mark.parametrize("address", ["9464", "127.0.0.1", "127.0.0.1:port", "a b:1"])
def test_an_address_without_a_port_is_refused(
    monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    monkeypatch.setenv("FUNDSAGA_METRICS_ADDRESS", address)

    with pytest.raises(InvalidRequestError, match="FUNDSAGA_METRICS_ADDRESS"):
        load_settings()


def test_an_address_in_use_is_refused_with_the_variable_name() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        host, port = taken.getsockname()

        with pytest.raises(InvalidRequestError, match=r"FUNDSAGA_METRICS_ADDRESS.*in use"):
            prometheus_runtime(f"{host}:{port}")
