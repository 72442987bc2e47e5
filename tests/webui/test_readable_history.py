"""A saga's history as the Web UI shows it: a business refusal is stored with its type and
message but no stack trace (nor the worker's file paths), and each compensation's completion
is a JSON account of the step it undid, not a `binary/null` payload shown as base64."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_money
from sagas.client import FundsagaClient
from sagas.testing import directory_audit_store, new_task_queue, sqlite_ledger
from sagas.worker import build_worker
from tests.unchecked import unchecked


@pytest.fixture
async def refused(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[list[HistoryEvent]]:
    """The history of a transfer refused by its frozen destination, once compensated."""
    tag = uuid.uuid4().hex[:8]
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account(f"src-{tag}", "EUR", opening_balance=parse_money("100.00", "EUR"))
    ledger.open_account(f"frozen-{tag}", "EUR")
    ledger.freeze(f"frozen-{tag}")
    queue = new_task_queue()
    async with build_worker(
        dev_env.client, queue, ledger, directory_audit_store(tmp_path / "audit")
    ):
        client = unchecked(FundsagaClient(dev_env.client, queue, ledger))
        request = {"source_account": f"src-{tag}", "destination_account": f"frozen-{tag}"}
        key = f"refused-{tag}"
        await client.start(
            "transfer", request | {"idempotency_key": key, "amount": "9.99", "currency": "EUR"}
        )
        saga = client.saga("transfer", key)
        assert (await saga.outcome()).status is SagaStatus.COMPENSATED
        yield [event async for event in saga.workflow.fetch_history_events()]


def _failures(node: Any) -> list[dict[str, Any]]:
    """Every failure (and each cause) in a history event's JSON form."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("failure", "cause") and isinstance(value, dict):
                found.append(value)
            found += _failures(value)
    elif isinstance(node, list):
        for value in node:
            found += _failures(value)
    return found


async def test_a_business_refusal_is_stored_without_stack_trace_or_paths(
    refused: list[HistoryEvent],
) -> None:
    failures = [f for event in refused for f in _failures(MessageToDict(event))]
    frozen = [f for f in failures if "is frozen" in f.get("message", "")]

    assert frozen, "the refusal is in the history"
    assert {f["applicationFailureInfo"]["type"] for f in frozen} == {"AccountFrozenError"}
    assert [f for f in failures if f.get("stackTrace")] == []
    text = str(failures)
    assert "/work" not in text
    assert ".py" not in text


async def test_each_compensation_result_is_a_json_account_of_the_undone_step(
    refused: list[HistoryEvent], dev_env: WorkflowEnvironment
) -> None:
    scheduled = {
        event.event_id: event.activity_task_scheduled_event_attributes.activity_type.name
        for event in refused
        if event.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    results: dict[str, Any] = {}
    converter = dev_env.client.data_converter.payload_converter
    for event in refused:
        if event.event_type is not EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            continue
        completed = event.activity_task_completed_event_attributes
        activity = scheduled[completed.scheduled_event_id]
        if activity.endswith(".undo"):
            (payload,) = completed.result.payloads
            assert payload.metadata["encoding"] == b"json/plain"
            results[activity] = converter.from_payload(payload)

    assert sorted(results) == [
        "transfer.capture.undo",
        "transfer.credit.undo",
        "transfer.reserve.undo",
    ]
    for activity, result in results.items():
        assert result["compensation"] == activity
        assert result["step_name"] == activity.split(".")[1]
        assert result["result"] == "compensated"
        assert result["attempt"] >= 1
