"""`fundsaga dev` (what `make run` runs) with FUNDSAGA_PAYLOAD_KEYS set: its sagas' payloads are
encrypted at the server, and its codec server, on the loopback interface, decodes them for the
Web UI's origin."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import json_format
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.client import Client

from sagas.codec import PayloadKeys
from sagas.servers import DEV_CODEC_TOKEN_FILE, free_port

pytestmark = [pytest.mark.timeout(120), pytest.mark.long]
CLI = [sys.executable, "-c", "from sagas.cli import main; main()"]


class Dev:
    def __init__(self, home: Path, env: dict[str, str], ports: tuple[int, int, int]) -> None:
        self.home, self.env = home, env
        self.port, ui_port, self.codec_port = ports
        self.ui_origin = f"http://localhost:{ui_port}"

    def fundsaga(
        self, *argv: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """The CLI as the operator who ran `make run`, or with `env` on top."""
        return subprocess.run(
            [*CLI, *argv],
            env=self.env | (env or {}),
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=60,
        )


@pytest.fixture
def dev(tmp_path: Path) -> Iterator[Dev]:
    port, ui_port, codec_port = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": f"127.0.0.1:{port}",
        "FUNDSAGA_PAYLOAD_KEYS": PayloadKeys.generate("dev-key"),
        "FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0",
    }
    args = ["dev", "--port", str(port), "--ui-port", str(ui_port), "--codec-port", str(codec_port)]
    log = (tmp_path / "dev.log").open("w")
    process = subprocess.Popen([*CLI, *args], env=env, cwd=tmp_path, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while "Ctrl-C stops everything" not in (tmp_path / "dev.log").read_text():
            assert process.poll() is None, (tmp_path / "dev.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "dev.log").read_text()
            time.sleep(0.2)
        yield Dev(tmp_path, env, (port, ui_port, codec_port))
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _funding_id(table: str) -> list[str]:
    """The funding id in `accounts create --opening-balance`'s table."""
    return [word for word in table.split() if word.startswith("funding-")][:1]


async def test_make_run_with_keys_encrypts_and_its_codec_server_decodes(dev: Dev) -> None:
    account = f"rent-payer-{uuid.uuid4().hex[:6]}"
    opened = dev.fundsaga(
        "accounts", "create", account, "--currency", "EUR", "--opening-balance", "90.00"
    )
    assert opened.returncode == 0, opened.stderr
    funding = json.loads(
        dev.fundsaga("accounts", "funding", *_funding_id(opened.stdout), "--output", "json").stdout
    )
    approved = dev.fundsaga(
        "accounts", "approve-funding", funding["funding_id"], env={"FUNDSAGA_OPERATOR": "checker"}
    )
    assert approved.returncode == 0, approved.stderr
    assert dev.fundsaga("accounts", "create", "landlord-x", "--currency", "EUR").returncode == 0
    request = {
        "source_account": account,
        "destination_account": "landlord-x",
        "amount": "12.34",
        "currency": "EUR",
        "idempotency_key": "dev-enc-1",
    }
    started = dev.fundsaga(
        "sagas", "start", "--type", "transfer", "--request", json.dumps(request), "--wait"
    )
    assert started.returncode == 0, started.stdout + started.stderr

    plain = await Client.connect(f"127.0.0.1:{dev.port}")
    history = await plain.get_workflow_handle("transfer-dev-enc-1").fetch_history()
    first_input = history.events[0].workflow_execution_started_event_attributes.input
    assert [p.metadata["encoding"] for p in first_input.payloads] == [b"binary/encrypted"]
    assert account.encode() not in first_input.SerializeToString()
    body = json_format.MessageToJson(first_input).encode()
    headers = {"Content-Type": "application/json", "Origin": dev.ui_origin}
    decode = f"http://127.0.0.1:{dev.codec_port}/decode"
    with pytest.raises(urllib.error.HTTPError) as refused:  # another local user, no token
        urllib.request.urlopen(
            urllib.request.Request(decode, data=body, headers=headers, method="POST"), timeout=10
        )
    refused.value.close()
    token_file = dev.home / ".fundsaga" / DEV_CODEC_TOKEN_FILE
    token = token_file.read_text()
    answer = urllib.request.urlopen(
        urllib.request.Request(
            decode,
            data=body,
            headers=headers | {"Authorization": f"Bearer {token}"},
            method="POST",
        ),
        timeout=10,
    )
    with answer:
        assert answer.headers["Access-Control-Allow-Origin"] == dev.ui_origin
        decoded = json_format.Parse(answer.read(), Payloads())
    (payload,) = decoded.payloads
    assert isinstance(payload, Payload)
    assert json.loads(payload.data)["source_account"] == account
    assert refused.value.code == 401
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
