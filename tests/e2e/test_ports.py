"""Every port fundsaga's servers bind is the one asked for: `fundsaga dev`'s four (Temporal's
gRPC, Web UI, HTTP API and its own /metrics), the testing kit's dev server and time-skipping
server; a port another process holds is refused by its option before anything starts."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sagas.foundations import InvalidRequestError
from sagas.servers import check_ports_free, free_port, port_is_free
from sagas.testing import dev_server_environment, time_skipping_environment

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180), pytest.mark.slow]
CLI = [sys.executable, "-c", "from sagas.cli import main; main()"]


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another process's server holds."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port: int = holder.getsockname()[1]
        yield port


def neighbours(count: int) -> list[int]:
    """`count` consecutive free ports, as `--port P --ui-port P+1` asks."""
    while True:
        first = free_port()
        ports = list(range(first, first + count))
        if ports[-1] < 65536 and all(port_is_free(p) for p in ports):
            return ports


def answers(url: str) -> int:
    with urllib.request.urlopen(url, timeout=5) as response:
        status: int = response.status
        return status


def test_a_held_port_and_a_shared_one_are_refused_by_option(busy_port: int) -> None:
    free = free_port()
    with pytest.raises(InvalidRequestError) as held:
        check_ports_free({"--port": free, "--ui-port": busy_port})
    assert held.value.field == "--ui-port"
    assert f"port {busy_port} on 127.0.0.1 is in use" in held.value.problem
    with pytest.raises(InvalidRequestError) as shared:
        check_ports_free({"--port": free, "--metrics-port": free})
    assert shared.value.field == "--metrics-port"
    assert "also --port" in shared.value.problem
    check_ports_free({"--port": free})


def dev_env() -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("FUNDSAGA_")}
    return inherited | {"FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0"}


def test_fundsaga_dev_binds_exactly_the_ports_given(tmp_path: Path) -> None:
    port, ui_port, http_port, metrics_port = neighbours(4)
    options = ["--port", str(port), "--ui-port", str(ui_port)]
    options += ["--http-port", str(http_port), "--metrics-port", str(metrics_port)]
    log_path = tmp_path / "dev.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*CLI, "dev", "--no-worker", *options],
            cwd=tmp_path,
            env=dev_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 90
            while "start one on task queue" not in log_path.read_text():
                assert process.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.2)
            assert not any(port_is_free(p) for p in (port, ui_port, http_port, metrics_port))
            assert answers(f"http://127.0.0.1:{ui_port}/") == 200
            assert answers(f"http://127.0.0.1:{metrics_port}/metrics") == 200
            assert answers(f"http://127.0.0.1:{http_port}/api/v1/namespaces") == 200
        finally:
            process.terminate()
            process.wait(timeout=60)
    assert process.returncode == 0, log_path.read_text()


def test_fundsaga_dev_refuses_a_busy_port_and_starts_nothing(
    tmp_path: Path, busy_port: int
) -> None:
    port = free_port()
    done = subprocess.run(
        [*CLI, "dev", "--port", str(port), "--ui-port", str(busy_port)],
        cwd=tmp_path,
        env=dev_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: --ui-port: port {busy_port} on 127.0.0.1 is in use by another process"
    ]
    assert not (tmp_path / ".fundsaga").exists()
    assert port_is_free(port)


async def test_the_kit_s_servers_take_the_ports_given() -> None:
    port, http_port, metrics_port = neighbours(3)
    async with dev_server_environment(port, http_port=http_port, metrics_port=metrics_port) as env:
        assert env.client.service_client.config.target_host == f"127.0.0.1:{port}"
        assert answers(f"http://127.0.0.1:{metrics_port}/metrics") == 200
        assert not port_is_free(http_port)
    (skipping,) = neighbours(1)
    async with time_skipping_environment(skipping) as env:
        assert env.client.service_client.config.target_host == f"127.0.0.1:{skipping}"
        assert not port_is_free(skipping)


def test_the_replay_recorder_runs_its_dev_server_on_the_ports_given(tmp_path: Path) -> None:
    """While `python -m sagas.testing record ... --port --http-port --metrics-port` records, its
    dev server answers on those ports; the recording then ends well."""
    port, http_port, metrics_port = neighbours(3)
    options = ["--port", str(port), "--http-port", str(http_port)]
    options += ["--metrics-port", str(metrics_port)]
    target = "tests.escrow.scenario:ESCROW_SCENARIO"
    recorder = subprocess.Popen(
        [sys.executable, "-m", "sagas.testing", "record", target, str(tmp_path), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen_metrics = seen_grpc_and_http = False
    while recorder.poll() is None and not (seen_metrics and seen_grpc_and_http):
        with contextlib.suppress(OSError):
            seen_metrics = (
                seen_metrics or answers(f"http://127.0.0.1:{metrics_port}/metrics") == 200
            )
        held = not port_is_free(port) and not port_is_free(http_port)
        seen_grpc_and_http = seen_grpc_and_http or held
        time.sleep(0.05)
    output, _ = recorder.communicate(timeout=120)
    assert recorder.returncode == 0, output
    assert seen_metrics, output
    assert seen_grpc_and_http, output
    assert output.count("recorded ") == len(list(tmp_path.glob("escrow-*.json"))) > 0


def test_a_free_port_is_one_the_kernel_never_hands_to_bind_0() -> None:
    """Temporal's test servers bind port 0: a port picked from the kernel's range could be given
    to one of them before the server meant to have it binds it."""
    ephemeral_start = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    picked = {free_port() for _ in range(20)}

    assert all(port < ephemeral_start for port in picked)
    assert len(picked) > 1
    assert all(port_is_free(port) for port in picked)
