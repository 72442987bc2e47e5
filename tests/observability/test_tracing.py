"""Tracing through the SDK's interceptor on the client: one compensated transfer is one trace,
from the client's start through the workflow to every step and compensation; a `fundsaga
worker` process sends its part of that trace to FUNDSAGA_OTLP_ENDPOINT; off by default; a bad
endpoint is refused with the variable's name."""

from __future__ import annotations

import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from sagas import InvalidRequestError, SagaStatus, load_settings, parse_faults, parse_money
from sagas.client import FundsagaClient, connect_temporal
from sagas.ledger import Ledger
from sagas.telemetry import tracer_provider, tracing_interceptors
from sagas.testing import directory_audit_store, new_task_queue, sqlite_ledger
from sagas.worker import build_worker
from tests.observability.worker_process import WorkerProcess

ENDPOINT = "FUNDSAGA_OTLP_ENDPOINT"


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver on a free port that keeps every span it is sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.spans: list[tuple[str, bytes, str]] = []
        """(span name, trace id, service name)"""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(self.rfile.read(int(self.headers["Content-Length"])))
        for resource_spans in request.resource_spans:
            attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    self.server.spans.append((span.name, span.trace_id, attributes["service.name"]))
        self.send_response(200 if self.path == "/v1/traces" else 404)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(autouse=True)
def no_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENDPOINT, raising=False)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("100.00", "EUR"))
    ledger.open_account("dave", "EUR")
    return ledger


@pytest.fixture
async def traced(
    dev_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> AsyncIterator[tuple[FundsagaClient, InMemorySpanExporter]]:
    """A client and its worker tracing into memory; a transfer to dave fails at settle."""
    spans = InMemorySpanExporter()
    temporal = await Client.connect(
        dev_env.client.service_client.config.target_host,
        namespace=dev_env.client.namespace,
        data_converter=pydantic_data_converter,
        interceptors=tracing_interceptors(tracer_provider(spans, batch=False)),
    )
    task_queue = new_task_queue()
    audit = directory_audit_store(tmp_path / "audit")
    faults = parse_faults("settle=business@dave")
    async with build_worker(temporal, task_queue, ledger, audit, faults):
        yield FundsagaClient(temporal, task_queue, ledger), spans


async def test_a_compensated_saga_is_one_trace_of_its_steps_and_compensations(
    traced: tuple[FundsagaClient, InMemorySpanExporter],
) -> None:
    client, exporter = traced
    key = f"traced-{uuid.uuid4().hex[:12]}"
    request = {"source_account": "alice", "destination_account": "dave", "amount": "10.00"}
    await client.start("transfer", {"idempotency_key": key, **request, "currency": "EUR"})
    outcome = await client.saga("transfer", key).outcome()
    spans = exporter.get_finished_spans()
    by_id = {_ids(span)[1]: span for span in spans}
    names = [span.name for span in spans]

    assert outcome.status is SagaStatus.COMPENSATED
    assert {_ids(span)[0] for span in spans} == {_ids(spans[0])[0]}
    assert [span.name for span in spans if span.parent is None] == [
        "StartWorkflow:TransferWorkflow"
    ]
    assert all(span.parent.span_id in by_id for span in spans if span.parent is not None)
    assert {"RunWorkflow:TransferWorkflow", "CompleteWorkflow:TransferWorkflow"} <= set(names)
    steps = ["reserve", "capture", "credit", "settle"]
    undone = [f"{step}.undo" for step in reversed(steps)]
    prefix = "RunActivity:transfer."
    run = [name.removeprefix(prefix) for name in names if name.startswith(prefix)]
    assert run == [*steps, *undone]
    for span in spans:
        if span.name.startswith("RunActivity:") and span.parent is not None:
            started = by_id[span.parent.span_id].name
            assert started == span.name.replace("RunActivity:", "StartActivity:")
    (failed,) = [span for span in spans if span.status.status_code is StatusCode.ERROR]
    assert failed.name == "RunActivity:transfer.settle"


@pytest.fixture
def collector() -> Iterator[Collector]:
    with Collector() as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server
        server.shutdown()


async def test_a_worker_process_sends_its_spans_to_the_endpoint_in_the_client_s_trace(
    dev_env: WorkflowEnvironment, tmp_path: Path, collector: Collector
) -> None:
    address = dev_env.client.service_client.config.target_host
    worker = WorkerProcess.prepare(tmp_path, address, FUNDSAGA_OTLP_ENDPOINT=collector.url)
    client_spans = InMemorySpanExporter()
    temporal = await Client.connect(
        address,
        namespace=dev_env.client.namespace,
        data_converter=pydantic_data_converter,
        interceptors=tracing_interceptors(tracer_provider(client_spans, batch=False)),
    )

    status, _ = await worker.transfer(temporal, f"otlp-{uuid.uuid4().hex[:12]}", "carol")
    (started,) = client_spans.get_finished_spans()
    trace_id = _ids(started)[0].to_bytes(16, "big")

    assert status is SagaStatus.COMPLETED
    assert started.name == "StartWorkflow:TransferWorkflow"
    received = {name for name, trace, service in collector.spans if trace == trace_id}
    assert {"RunWorkflow:TransferWorkflow", "RunActivity:transfer.settle"} <= received
    assert {service for _, _, service in collector.spans} == {"fundsaga"}


def _ids(span: ReadableSpan) -> tuple[int, int]:
    """The span's trace id and its own id."""
    assert span.context is not None
    return span.context.trace_id, span.context.span_id


async def test_tracing_is_off_unless_the_endpoint_is_set(
    dev_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", dev_env.client.service_client.config.target_host)
    untraced = await connect_temporal(load_settings())
    monkeypatch.setenv(ENDPOINT, "http://127.0.0.1:4318")
    traced = await connect_temporal(load_settings())

    assert untraced.config()["interceptors"] == []
    assert [type(i) for i in traced.config()["interceptors"]] == [TracingInterceptor]


@pytest.mark.parametrize("endpoint", ["localhost:4318", "grpc://collector:4317", "http://"])
def test_an_endpoint_that_is_not_an_http_url_is_refused(
    monkeypatch: pytest.MonkeyPatch, endpoint: str
) -> None:
    monkeypatch.setenv(ENDPOINT, endpoint)

    with pytest.raises(InvalidRequestError, match=f"{ENDPOINT}: must be an http"):
        load_settings()
