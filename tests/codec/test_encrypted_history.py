"""With FUNDSAGA_PAYLOAD_KEYS set, a saga's history as the server keeps it holds no amount,
account id or reference in plain text (inputs, results, failures, memo, summaries); the codec
server shows it decoded to the `temporal` CLI that brings the bearer token."""

from __future__ import annotations

import base64
import http.client
import json
import secrets
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import (
    DescribeWorkflowExecutionRequest,
    GetWorkflowExecutionHistoryRequest,
)
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults, parse_money
from sagas.audit import AuditStore, witness_findings, witnessed_records
from sagas.client import FundsagaClient, saga_id
from sagas.codec import PayloadKeys, converter_for
from sagas.foundations import InvalidRequestError
from sagas.ledger import Ledger
from sagas.servers import free_port, serve_codec, temporal_cli_path
from sagas.testing import directory_audit_store, new_task_queue, sqlite_ledger
from sagas.verify import temporal_witness
from sagas.worker import build_worker

KEYS = PayloadKeys.parse(PayloadKeys.generate("test-2026-11"))
TOKEN = secrets.token_urlsafe(32)
AMOUNT = "4321.87"


@dataclass(frozen=True)
class Secrets:
    """What must never be readable in a history: the accounts, the amount, the reference."""

    source: str
    destination: str
    refused: str
    reference: str

    def found_in(self, raw: bytes) -> list[str]:
        words = [self.source, self.destination, self.refused, self.reference, AMOUNT, "432187"]
        return [word for word in words if word.encode() in raw]


@dataclass(frozen=True)
class Stack:
    temporal: Client
    plain: Client
    task_queue: str
    ledger: Ledger
    secrets: Secrets
    store: AuditStore


@pytest.fixture
async def stack(dev_env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[Stack]:
    tag = uuid.uuid4().hex[:8]
    secrets = Secrets(f"src-{tag}", f"dst-{tag}", f"frozen-{tag}", f"invoice {tag} rent")
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account(secrets.source, "EUR", opening_balance=parse_money("10000.00", "EUR"))
    for account in (secrets.destination, secrets.refused):
        ledger.open_account(account, "EUR")
    ledger.freeze(secrets.refused)
    target = dev_env.client.service_client.config.target_host
    encrypted = await Client.connect(
        target, namespace=dev_env.client.namespace, data_converter=converter_for(KEYS)
    )
    queue = new_task_queue()
    store = directory_audit_store(tmp_path / "audit")
    async with build_worker(encrypted, queue, ledger, store, parse_faults("")):
        yield Stack(encrypted, dev_env.client, queue, ledger, secrets, store)


async def transfer(stack: Stack, client: Client, destination: str) -> tuple[str, SagaStatus]:
    key = f"enc-{uuid.uuid4().hex[:10]}"
    fundsaga = FundsagaClient(client, stack.task_queue)  # no ledger: the step meets the frozen one
    await fundsaga.start(
        "transfer",
        {
            "idempotency_key": key,
            "source_account": stack.secrets.source,
            "destination_account": destination,
            "amount": AMOUNT,
            "currency": "EUR",
            "reference": stack.secrets.reference,
        },
    )
    return saga_id("transfer", key), (await fundsaga.saga("transfer", key).outcome()).status


async def raw_history(client: Client, workflow_id: str) -> bytes:
    """The history's events and the execution's description, as the server sends them."""
    execution = WorkflowExecution(workflow_id=workflow_id)
    parts: list[bytes] = []
    token = b""
    while True:
        page = await client.workflow_service.get_workflow_execution_history(
            GetWorkflowExecutionHistoryRequest(
                namespace=client.namespace, execution=execution, next_page_token=token
            )
        )
        parts.append(page.history.SerializeToString())
        token = page.next_page_token
        if not token:
            break
    described = await client.workflow_service.describe_workflow_execution(
        DescribeWorkflowExecutionRequest(namespace=client.namespace, execution=execution)
    )
    return b"".join([*parts, described.SerializeToString()])


async def test_no_money_data_in_plain_text_in_an_encrypted_history(stack: Stack) -> None:
    completed_id, completed = await transfer(stack, stack.temporal, stack.secrets.destination)
    refused_id, refused = await transfer(stack, stack.temporal, stack.secrets.refused)

    assert (completed, refused) == (SagaStatus.COMPLETED, SagaStatus.COMPENSATED)
    for workflow_id in (completed_id, refused_id):
        raw = await raw_history(stack.plain, workflow_id)
        assert stack.secrets.found_in(raw) == [], workflow_id
        assert b"binary/encrypted" in raw
    # The compensated saga's failure message (the frozen account's refusal) is sealed too;
    # its error type stays plain, as retry policies match on it.
    refused_raw = await raw_history(stack.plain, refused_id)
    assert b"is frozen" not in refused_raw
    assert b"AccountFrozenError" in refused_raw


async def test_without_keys_the_same_history_is_readable(stack: Stack, tmp_path: Path) -> None:
    """The check above can fail: a saga of a worker without keys shows the data it hides."""
    plain = replace(stack, task_queue=new_task_queue())
    store = directory_audit_store(tmp_path / "plain-audit")
    async with build_worker(plain.plain, plain.task_queue, plain.ledger, store):
        workflow_id, status = await transfer(plain, plain.plain, plain.secrets.destination)

    assert status is SagaStatus.COMPLETED
    found = stack.secrets.found_in(await raw_history(stack.plain, workflow_id))
    assert stack.secrets.source in found
    assert AMOUNT in found


async def test_the_audit_witness_reads_encrypted_receipts(stack: Stack) -> None:
    """`fundsaga audit verify` compares the store with the receipts in Temporal's histories:
    with payloads encrypted it decodes them as every payload, and they match."""
    saga, status = await transfer(stack, stack.temporal, stack.secrets.refused)

    witnessed = await witnessed_records(stack.temporal, stack.task_queue)

    assert status is SagaStatus.COMPENSATED
    assert saga in {w.saga_id for w in witnessed}
    assert witness_findings(stack.store.records(), witnessed) == []


async def test_the_ledger_witness_reads_receipts_with_no_payload_key(stack: Stack) -> None:
    """Every step's ledger receipt sits in clear beside its sealed result: a client without
    the keys reads the entries a saga wrote, and no amount or account with them."""
    saga, status = await transfer(stack, stack.temporal, stack.secrets.destination)

    witness = await temporal_witness(stack.plain, stack.task_queue)

    assert status is SagaStatus.COMPLETED
    written = {(e.idempotency_key, e.entry_hash) for e in stack.ledger.entries(saga_id=saga)}
    seen = {(s.receipt.key, s.receipt.entry_hash) for s in witness.seen if s.history_of == saga}
    assert written
    assert seen == written
    receipts = b"".join(s.receipt.model_dump_json().encode() for s in witness.seen)
    assert stack.secrets.found_in(receipts) == []


def temporal_show(stack: Stack, workflow_id: str, *codec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            temporal_cli_path(),
            "workflow",
            "show",
            "--workflow-id",
            workflow_id,
            "--address",
            stack.plain.service_client.config.target_host,
            "--namespace",
            stack.plain.namespace,
            "--output",
            "json",
            *codec,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_the_codec_server_decodes_for_the_cli_with_the_token(stack: Stack) -> None:
    assert KEYS is not None
    workflow_id, _ = await transfer(stack, stack.temporal, stack.secrets.destination)
    with serve_codec(KEYS, TOKEN, ["http://localhost:8233"], "127.0.0.1", free_port()) as server:
        endpoint = ["--codec-endpoint", server.url]
        shown = temporal_show(stack, workflow_id, *endpoint, "--codec-auth", f"Bearer {TOKEN}")

    assert shown.returncode == 0, shown.stderr
    readable = " ".join(plain_payloads(json.loads(shown.stdout)))
    assert stack.secrets.source in readable
    assert stack.secrets.reference in readable


async def test_the_codec_server_shows_each_compensation_as_json(stack: Stack) -> None:
    """What the Web UI shows through its codec endpoint: every compensation's result names the
    step it undid; the sealed history holds none of it in clear."""
    assert KEYS is not None
    workflow_id, status = await transfer(stack, stack.temporal, stack.secrets.refused)
    with serve_codec(KEYS, TOKEN, ["http://localhost:8233"], "127.0.0.1", free_port()) as server:
        endpoint = ["--codec-endpoint", server.url]
        shown = temporal_show(stack, workflow_id, *endpoint, "--codec-auth", f"Bearer {TOKEN}")

    assert status is SagaStatus.COMPENSATED
    assert shown.returncode == 0, shown.stderr
    undone = {
        result["step_name"]
        for result in map(json.loads, plain_payloads(json.loads(shown.stdout)))
        if isinstance(result, dict) and result.get("result") == "compensated"
    }
    assert undone == {"credit", "capture", "reserve"}
    assert b'"result":"compensated"' not in await raw_history(stack.plain, workflow_id)


def plain_payloads(node: Any) -> list[str]:
    """The data of every JSON payload in the CLI's JSON output (protobuf JSON: base64)."""
    found: list[str] = []
    if isinstance(node, dict):
        encoding = node.get("metadata", {}).get("encoding") if "data" in node else None
        if isinstance(encoding, str) and base64.b64decode(encoding) == b"json/plain":
            found.append(base64.b64decode(node["data"]).decode())
        for value in node.values():
            found += plain_payloads(value)
    elif isinstance(node, list):
        for value in node:
            found += plain_payloads(value)
    return found


def preflight(url: str, origin: str) -> dict[str, str]:
    request = urllib.request.Request(
        f"{url}/decode",
        method="OPTIONS",
        headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return dict(response.headers)


def test_cors_allows_the_ui_s_origin_only() -> None:
    assert KEYS is not None
    ui = "http://localhost:8080"
    with serve_codec(KEYS, TOKEN, [ui], "127.0.0.1", free_port()) as server:
        allowed = preflight(server.url, ui)
        other = preflight(server.url, "http://evil.example")

    assert allowed["Access-Control-Allow-Origin"] == ui
    assert "Authorization" in allowed["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Origin" not in other


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", TOKEN], ids=["none", "wrong", "token-unbearered"]
)
def test_a_decode_without_the_token_is_refused(authorization: str | None) -> None:
    assert KEYS is not None
    headers = {"Authorization": authorization} if authorization else {}
    with serve_codec(KEYS, TOKEN, [], "127.0.0.1", free_port()) as server:
        request = urllib.request.Request(
            f"{server.url}/decode", data=b'{"payloads": []}', method="POST", headers=headers
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        refused.value.close()

    assert refused.value.code == 401


def test_no_token_is_refused_off_the_loopback_interface() -> None:
    assert KEYS is not None
    with (
        pytest.raises(InvalidRequestError, match="FUNDSAGA_CODEC_SERVER_TOKEN"),
        serve_codec(KEYS, "", [], "0.0.0.0", free_port()),
    ):
        pass


@pytest.mark.parametrize(
    "token", ["a", "change-me", "x" * 40, "a-codec-token-for-tests"], ids=str.__len__
)
def test_a_weak_or_placeholder_token_is_refused_at_start(token: str) -> None:
    assert KEYS is not None
    with (
        pytest.raises(InvalidRequestError, match="FUNDSAGA_CODEC_SERVER_TOKEN"),
        serve_codec(KEYS, token, [], "0.0.0.0", free_port()),
    ):
        pass


def _decode_as(url: str, host: str) -> int:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
    try:
        body = b'{"payloads": []}'
        connection.putrequest("POST", "/decode", skip_host=True)
        connection.putheader("Host", host)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def test_the_development_codec_server_answers_loopback_names_only() -> None:
    """Without a token it trusts the machine; a page whose name resolves to 127.0.0.1 (DNS
    rebinding) must not reach it through a browser."""
    assert KEYS is not None
    with serve_codec(KEYS, "", [], "127.0.0.1", free_port()) as server:
        port = server.server_address[1]
        rebound = _decode_as(server.url, f"attacker.example:{port}")
        local = _decode_as(server.url, f"localhost:{port}")

    assert (rebound, local) == (421, 200)
