"""The benchmark worker: the production worker for ENGINE, the same options for BARE and NAIVE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.worker import UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from sagas.audit import (
    AnchoredAuditStore,
    AnchorStore,
    AuditKeys,
    AuditStore,
    SigningKey,
    open_audit_store,
)
from sagas.engine import FaultPlan, parse_faults
from sagas.foundations import Settings
from sagas.telemetry import prometheus_runtime
from sagas.worker import CompiledSandboxRunner, build_worker, saga_workflow_runner
from tooling.baselines.activities import NaiveActivities, noop
from tooling.baselines.features import FeatureWorkflow, padded_noop
from tooling.baselines.workflows import BareLocalWorkflow, BareWorkflow, NaiveTransferWorkflow
from tooling.bench._codec import bench_converter
from tooling.bench._config import WorkerKnobs
from tooling.bench._setup import bench_ledger

BASELINES = "tooling.baselines"

COMPENSATE_FAULTS = "settle=business"


@dataclass(frozen=True, kw_only=True)
class WorkerSpec:
    address: str
    namespace: str
    database_url: str
    audit_store: str
    engine_queue: str
    compensate_queue: str
    bench_queue: str
    knobs: WorkerKnobs
    variant_queues: dict[str, str] = field(default_factory=dict)
    """Scenario name (ENGINE-NOSIGN, ...) to its task queue; empty runs no variant."""
    metrics_address: str = ""
    """Where the run's Prometheus exporter binds (every worker but ENGINE-NOMETRICS's)."""
    payload_keys: str = field(default="", repr=False)
    """The run's key when the codec is on (`run_keys`), else empty."""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerSpec:
        data: dict[str, Any] = json.loads(text)
        return cls(**(data | {"knobs": WorkerKnobs(**data["knobs"])}))


def _worker_options(knobs: WorkerKnobs, *workflow_modules: str) -> dict[str, Any]:
    """The knobs under measurement, as options build_worker passes on to the Worker (and the
    BARE and NAIVE worker takes alike, its own workflow modules passed through as well)."""
    options: dict[str, Any] = {"max_concurrent_activities": knobs.max_concurrent_activities}
    if knobs.max_concurrent_workflow_tasks is not None:
        options["max_concurrent_workflow_tasks"] = knobs.max_concurrent_workflow_tasks
    if knobs.max_cached_workflows is not None:
        options["max_cached_workflows"] = knobs.max_cached_workflows
    options["workflow_runner"] = _RUNNERS[knobs.sandbox](*workflow_modules)
    return options


_RUNNERS: dict[str, Callable[..., WorkflowRunner]] = {
    "passthrough": saga_workflow_runner,
    "sdk-default": lambda *_modules: SandboxedWorkflowRunner(),
    "off": lambda *_modules: UnsandboxedWorkflowRunner(),
}


def _engine_worker(
    client: Client,
    spec: WorkerSpec,
    queue: str,
    audit: AuditStore,
    faults: FaultPlan | None = None,
    *,
    signed: bool = True,
) -> Worker:
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal, signed=signed)
    return build_worker(client, queue, ledger, audit, faults, **_worker_options(spec.knobs))


def _variant_workers(
    clients: tuple[Client, Client], spec: WorkerSpec, audits: tuple[AuditStore, AuditStore]
) -> list[Worker]:
    """ENGINE with one add-on off each: the signer, the audit anchors, the metrics runtime."""
    metered, plain = clients
    anchored, unanchored = audits
    queues = spec.variant_queues
    built: list[Worker] = []
    if "ENGINE-NOSIGN" in queues:
        built.append(_engine_worker(metered, spec, queues["ENGINE-NOSIGN"], anchored, signed=False))
    if "ENGINE-NOANCHOR" in queues:
        built.append(_engine_worker(metered, spec, queues["ENGINE-NOANCHOR"], unanchored))
    if "ENGINE-NOMETRICS" in queues:
        built.append(_engine_worker(plain, spec, queues["ENGINE-NOMETRICS"], anchored))
    return built


def _bench_worker(client: Client, spec: WorkerSpec) -> Worker:
    """BARE, NAIVE and BARE with one engine feature on, on the options build_worker gives the
    engine's worker."""
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal)
    options = _worker_options(spec.knobs, BASELINES)
    if isinstance(runner := options["workflow_runner"], CompiledSandboxRunner):
        # As build_worker does for the engine's worker: the same runner for both sides.
        options["workflow_runner"] = runner.for_converter(client.data_converter)
    return Worker(
        client,
        task_queue=spec.bench_queue,
        workflows=[BareWorkflow, BareLocalWorkflow, NaiveTransferWorkflow, FeatureWorkflow],
        activities=[noop, padded_noop, *NaiveActivities(ledger).all()],
        activity_executor=ThreadPoolExecutor(max_workers=options["max_concurrent_activities"]),
        **options,
    )


async def _connect(spec: WorkerSpec, runtime: Runtime | None) -> Client:
    return await Client.connect(
        spec.address,
        namespace=spec.namespace,
        data_converter=bench_converter(spec.payload_keys),
        runtime=runtime,
    )


def _audit_stores(spec: WorkerSpec) -> tuple[AnchoredAuditStore, AuditStore]:
    """As production opens it (anchored every FUNDSAGA_AUDIT_ANCHOR_EVERY records in a store
    apart), and the same kind of store without anchors for ENGINE-NOANCHOR."""
    keys = AuditKeys.for_writer(SigningKey.generate())
    every: int = Settings.model_fields["audit_anchor_every"].default
    anchors = AnchorStore(open_audit_store(f"{spec.audit_store}-anchors", keys))
    anchored = AnchoredAuditStore(open_audit_store(spec.audit_store, keys), anchors, every)
    return anchored, open_audit_store(f"{spec.audit_store}-unanchored", keys)


@asynccontextmanager
async def running_workers(spec: WorkerSpec) -> AsyncIterator[None]:
    metrics = prometheus_runtime(spec.metrics_address) if spec.metrics_address else None
    client = await _connect(spec, metrics)
    plain = await _connect(spec, None) if metrics else client
    audit, unanchored = _audit_stores(spec)
    workers: Sequence[Worker] = (
        _engine_worker(client, spec, spec.engine_queue, audit),
        _engine_worker(client, spec, spec.compensate_queue, audit, parse_faults(COMPENSATE_FAULTS)),
        _bench_worker(client, spec),
        *_variant_workers((client, plain), spec, (audit, unanchored)),
    )
    async with AsyncExitStack() as stack:
        for worker in workers:
            await stack.enter_async_context(worker)
        yield
    audit.close_connections()
    unanchored.close_connections()
