"""FUNDSAGA_LOG_FORMAT=json: a `fundsaga worker` process writes one JSON object a line on stderr,
and a failed step attempt's line names its saga, type, step, attempt and error class; a record
with no saga fields gets none invented."""

from __future__ import annotations

import json
import logging
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import InvalidRequestError, SagaStatus, load_settings
from sagas.telemetry import JsonFormatter
from tests.observability.worker_process import WorkerProcess


async def test_a_failed_attempt_is_one_json_line_naming_the_saga_step_attempt_and_error(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    worker = WorkerProcess.prepare(
        tmp_path,
        dev_env.client.service_client.config.target_host,
        FUNDSAGA_LOG_FORMAT="json",
        FUNDSAGA_FAULTS="capture=timeout*1@carol",
    )
    key = f"json-{uuid.uuid4().hex[:12]}"

    status, stderr = await worker.transfer(dev_env.client, key, "carol")
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
        "task_queue": worker.env["FUNDSAGA_TASK_QUEUE"],
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
