"""One contract for a key already used, whoever launches: the `temporal` CLI (the Go SDK) with
the flags `docs/transfer-input.md` documents, the Python client and the `fundsaga` CLI.

A REJECTED key is reused only with the documented AllowDuplicate start; a closed key starts
nothing and every launcher says so; the compensation audit reads each run of the reused key by
its run id and stays clean.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import FailureReason, IdempotencyConflictError, SagaStatus
from sagas.audit import AuditStore, open_audit_store
from sagas.client import FundsagaClient, saga_id
from sagas.engine import FINGERPRINT_MEMO
from sagas.foundations import canonical_json, sha256_hex
from sagas.ledger import Ledger
from sagas.testing import dev_identity, freeze_by_operator
from sagas.transfer import TransferRequest
from sagas.worker import build_worker
from tests.docs.test_docs_match_code import read_doc, shell_commands
from tests.e2e.conftest import TemporalCli, eur, fundsaga
from tests.fixtures_audit import TEST_KEYS
from tests.unchecked import unchecked

pytestmark = [
    pytest.mark.long,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]


def documented_starts() -> tuple[list[str], list[str]]:
    """The documented `temporal workflow start` and its reuse, as words after `temporal`."""
    start, reuse = shell_commands(read_doc("transfer-input.md"), "temporal workflow start")
    return start[1:], reuse[1:]


def as_documented(words: list[str], queue: str, request: dict[str, Any]) -> list[str]:
    """The documented command for `request` on `queue`: every other flag as the page writes it."""
    given = {
        "--task-queue": queue,
        "--workflow-id": saga_id("transfer", request["idempotency_key"]),
        "--input": json.dumps(request),
        "--memo": f"{FINGERPRINT_MEMO}={json.dumps(fingerprint(request))}",
        "--static-summary": f"transfer {request['idempotency_key']}",
    }
    out = list(words)
    for flag, value in given.items():
        out[out.index(flag) + 1] = value
    return out


def fingerprint(request: dict[str, Any]) -> str:
    """As the page says: the parsed request's, or for a bad one the hash of what was sent."""
    try:
        return TransferRequest.parse(request).fingerprint()
    except ValueError:
        return sha256_hex(canonical_json(request))


async def result_of(temporal: TemporalCli, key: str) -> dict[str, Any]:
    """`temporal workflow result`: the newest run's outcome, once it closed."""
    ran = await temporal(
        "workflow", "result", "--workflow-id", saga_id("transfer", key), "--output", "json"
    )
    assert ran.returncode == 0, ran.stderr
    result: dict[str, Any] = json.loads(ran.stdout)["result"]
    return result


async def described(temporal: TemporalCli, key: str) -> dict[str, Any]:
    ran = await temporal(
        "workflow", "describe", "--workflow-id", saga_id("transfer", key), "--output", "json"
    )
    assert ran.returncode == 0, ran.stderr
    document: dict[str, Any] = json.loads(ran.stdout)
    return document


def run_id(started: str) -> str:
    return str(json.loads(started)["runId"])


@pytest.fixture
async def service(
    dev_env: WorkflowEnvironment, cli_task_queue: str, funded_by_two: Ledger, tmp_path: Path
) -> AsyncIterator[FundsagaClient]:
    """A worker on the CLI's task queue, writing to the audit trail the CLI audits."""
    store: AuditStore = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    operators = dev_identity().check()
    async with build_worker(
        dev_env.client, cli_task_queue, funded_by_two, store, operators=operators
    ):
        yield FundsagaClient(dev_env.client, cli_task_queue, funded_by_two)
    store.close_connections()


async def test_a_rejected_key_is_reused_as_documented_and_the_audit_stays_clean(
    service: FundsagaClient,
    temporal: TemporalCli,
    funded_by_two: Ledger,
    capsys: pytest.CaptureFixture[str],
) -> None:
    start, reuse = documented_starts()
    queue = service.task_queue
    key = f"reuse-{uuid.uuid4().hex[:10]}"
    corrected = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "currency": "EUR",
        "amount": "1.00",
    }
    bad = {**corrected, "amount": "-1.00"}

    first = await temporal(*as_documented(start, queue, bad), "--output", "json")
    assert first.returncode == 0, first.stderr
    rejected = await result_of(temporal, key)
    # The script can tell that the documented start did not start the corrected request.
    refused = await temporal(*as_documented(start, queue, corrected))
    shown = (await described(temporal, key))["workflowExecutionInfo"]["searchAttributes"]
    again = await temporal(*as_documented(reuse, queue, corrected), "--output", "json")
    completed = await result_of(temporal, key)

    assert rejected["status"] == "REJECTED"
    assert rejected["failure"]["reason"] == FailureReason.INVALID_INPUT.value
    assert refused.returncode == 1
    assert "already finished" in refused.stderr
    assert json.loads(base64.b64decode(shown["indexedFields"]["SagaStatus"]["data"])) == "REJECTED"
    assert again.returncode == 0, again.stderr
    assert run_id(again.stdout) != run_id(first.stdout)
    assert completed["status"] == "COMPLETED"
    assert funded_by_two.account("bob").balance == eur("51.00")

    # The Python client and the fundsaga CLI find the completed saga and start nothing.
    found = await service.launch("transfer", corrected)
    with pytest.raises(IdempotencyConflictError, match="is COMPLETED"):
        await service.start("transfer", {**corrected, "amount": "2.00"})
    capsys.readouterr()
    cli = await fundsaga(*cli_start(corrected), "--output", "json")
    said = capsys.readouterr()

    assert (found.started, found.status) == (False, SagaStatus.COMPLETED)
    assert cli == 1
    assert json.loads(said.out)["status"] == "COMPLETED"
    assert json.loads(said.out)["started"] is False
    assert "not started" in said.err
    assert "COMPLETED" in said.err

    # A launcher that reuses a key that took effects moves nothing: the launch fence refuses it.
    careless = await temporal(*as_documented(reuse, queue, corrected), "--output", "json")
    fenced = await result_of(temporal, key)

    assert careless.returncode == 0, careless.stderr
    assert fenced["status"] == "REJECTED"
    assert fenced["failure"]["reason"] == FailureReason.SAGA_ID_REUSED.value
    assert funded_by_two.account("bob").balance == eur("51.00")

    capsys.readouterr()
    audited = await fundsaga("audit", "compensations", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    assert report["findings"] == []
    assert audited == 0
    lines = [row for row in report["sagas"] if row["saga_id"] == saga_id("transfer", key)]
    assert [row["status"] for row in lines] == ["REJECTED", "REJECTED"]
    assert all(row["verdict"]["ok"] for row in lines)


def cli_start(request: dict[str, str]) -> list[str]:
    return [
        "transfer",
        "start",
        "--key",
        request["idempotency_key"],
        "--from",
        request["source_account"],
        "--to",
        request["destination_account"],
        "--amount",
        request["amount"],
        "--currency",
        request["currency"],
    ]


async def test_a_rejected_key_reused_by_the_python_client_keeps_each_run_s_record(
    service: FundsagaClient,
    temporal: TemporalCli,
    funded_by_two: Ledger,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The later run compensates (started past the account checks, as another service would):
    its own closing record stands beside the REJECTED run's."""
    start, _ = documented_starts()
    await freeze_by_operator(service.temporal, service.task_queue, "carol")
    key = f"reuse-{uuid.uuid4().hex[:10]}"
    corrected = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "carol",
        "currency": "EUR",
        "amount": "3.00",
    }
    refused = await temporal(
        *as_documented(start, service.task_queue, {**corrected, "amount": "3.001"})
    )
    assert refused.returncode == 0, refused.stderr
    assert (await result_of(temporal, key))["status"] == "REJECTED"

    launch = await unchecked(service).launch("transfer", corrected)
    outcome = await service.saga("transfer", key).outcome()
    capsys.readouterr()
    audited = await fundsaga("audit", "compensations", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    assert launch.started
    assert outcome.status is SagaStatus.COMPENSATED
    assert report["findings"] == []
    assert audited == 0
    lines = [row for row in report["sagas"] if row["saga_id"] == saga_id("transfer", key)]
    assert [row["status"] for row in lines] == ["REJECTED", "COMPENSATED"]
    assert lines[1]["verdict"] == {"ok": True, "reason": "net effect zero on every account"}
