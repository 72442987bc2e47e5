"""FUNDSAGA_LOG_FORMAT=json: a `fundsaga worker` process writes one JSON object a line on stderr,
and a failed step attempt's line names its saga, type, step, attempt and error class; a record
with no saga fields gets none invented."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import InvalidRequestError, SagaStatus, load_settings, parse_money
from sagas.app import FundsagaClient, JsonFormatter
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER

FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
REPO = Path(__file__).resolve().parents[2]


def worker_environment(home: Path, address: str, **settings: str) -> dict[str, str]:
    """A `fundsaga worker` with its own ledger, audit trail and signing key in `home`."""
    TEST_SIGNER.write(home / "audit-signing.key")
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("FUNDSAGA_")}
    return inherited | {
        "PYTHONPATH": str(REPO),
        "TEMPORAL_ADDRESS": address,
        "FUNDSAGA_TASK_QUEUE": f"tq-{uuid.uuid4()}",
        "FUNDSAGA_DATABASE_URL": f"sqlite:///{home / 'fundsaga.db'}",
        "FUNDSAGA_AUDIT_STORE": f"dir:{home / 'audit'}",
        "FUNDSAGA_AUDIT_ANCHOR_STORE": f"dir:{home / 'anchors'}",
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(home / "audit-signing.key"),
        "FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0",
        **settings,
    }


async def run_worker_for(
    env: dict[str, str], home: Path, client: FundsagaClient, request: dict[str, str]
) -> tuple[SagaStatus, list[str]]:
    """Run a worker process while one transfer runs to its end; its status, the worker's
    stderr lines."""
    worker = await asyncio.create_subprocess_exec(
        FUNDSAGA,
        "worker",
        env=env,
        cwd=home,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert worker.stdout is not None
    try:
        await asyncio.wait_for(worker.stdout.readline(), timeout=60)
        await client.start_transfer(request)
        outcome = await asyncio.wait_for(client.outcome(request["idempotency_key"]), timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            worker.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(worker.communicate(), timeout=60)
    return outcome.status, stderr.decode().splitlines()


async def test_a_failed_attempt_is_one_json_line_naming_the_saga_step_attempt_and_error(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    env = worker_environment(
        tmp_path,
        dev_env.client.service_client.config.target_host,
        FUNDSAGA_LOG_FORMAT="json",
        FUNDSAGA_FAULTS="capture=timeout*1@carol",
    )
    upgrade_database(env["FUNDSAGA_DATABASE_URL"])
    ledger = Ledger.from_url(env["FUNDSAGA_DATABASE_URL"], signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("100.00", "EUR"))
    ledger.open_account("carol", "EUR")
    client = FundsagaClient(dev_env.client, env["FUNDSAGA_TASK_QUEUE"], ledger)
    key = f"json-{uuid.uuid4().hex[:12]}"
    request = {"source_account": "alice", "destination_account": "carol", "amount": "10.00"}

    status, stderr = await run_worker_for(
        env, tmp_path, client, {"idempotency_key": key, **request, "currency": "EUR"}
    )
    ledger.close_connections()
    lines: list[dict[str, Any]] = [json.loads(line) for line in stderr]
    failed = [line for line in lines if line.get("step") == "capture"]

    assert status is SagaStatus.COMPLETED
    assert len(failed) == 1, stderr
    assert failed[0] | {"time": "", "message": "", "run_id": ""} == {
        "time": "",
        "level": "WARNING",
        "logger": "temporalio.activity",
        "message": "",
        "saga_id": f"transfer-{key}",
        "saga_type": "transfer",
        "step": "capture",
        "phase": "action",
        "attempt": 1,
        "error_class": "StepTimeoutError",
        "workflow_id": f"transfer-{key}",
        "run_id": "",
        "task_queue": env["FUNDSAGA_TASK_QUEUE"],
    }
    assert failed[0]["time"].endswith("+00:00")
    assert failed[0]["message"] == (
        "step capture (action) of transfer failed (retryable): StepTimeoutError: "
        "injected timeout in capture.action after its effect committed (attempt 1)"
    )


def test_a_record_with_no_saga_fields_gets_none() -> None:
    record = logging.LogRecord(
        "fundsaga.worker", logging.WARNING, __file__, 1, "hi %s", ("you",), None
    )
    record.created = 0.0

    assert json.loads(JsonFormatter().format(record)) == {
        "time": "1970-01-01T00:00:00.000+00:00",
        "level": "WARNING",
        "logger": "fundsaga.worker",
        "message": "hi you",
    }


def test_an_exception_is_carried_as_its_traceback_text() -> None:
    try:
        raise KeyError("gone")
    except KeyError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "oops", (), sys.exc_info())

    line = json.loads(JsonFormatter().format(record))

    assert line["exception"].startswith("Traceback (most recent call last)")
    assert line["exception"].endswith("KeyError: 'gone'")


def test_an_unknown_log_format_is_refused_with_the_variable_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FUNDSAGA_LOG_FORMAT", "xml")

    with pytest.raises(InvalidRequestError, match="FUNDSAGA_LOG_FORMAT"):
        load_settings()
