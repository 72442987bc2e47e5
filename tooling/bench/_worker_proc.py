"""The benchmark worker: the production worker for ENGINE, the same options for BARE and NAIVE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from sagas.app import build_worker, saga_workflow_runner
from sagas.audit import AuditKeys, AuditStore, SigningKey, open_audit_store
from sagas.engine import FaultPlan, parse_faults
from tooling.baselines.activities import NaiveActivities, noop
from tooling.baselines.workflows import BareWorkflow, NaiveTransferWorkflow
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
    client: Client, spec: WorkerSpec, queue: str, audit: AuditStore, faults: FaultPlan
) -> Worker:
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal)
    return build_worker(client, queue, ledger, audit, faults, **_worker_options(spec.knobs))


def _bench_worker(client: Client, spec: WorkerSpec) -> Worker:
    """BARE and NAIVE, on the options build_worker gives the engine's worker."""
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal)
    options = _worker_options(spec.knobs, BASELINES)
    return Worker(
        client,
        task_queue=spec.bench_queue,
        workflows=[BareWorkflow, NaiveTransferWorkflow],
        activities=[noop, *NaiveActivities(ledger).all()],
        activity_executor=ThreadPoolExecutor(max_workers=options["max_concurrent_activities"]),
        **options,
    )


@asynccontextmanager
async def running_workers(spec: WorkerSpec) -> AsyncIterator[None]:
    client = await Client.connect(
        spec.address,
        namespace=spec.namespace,
        data_converter=bench_converter(spec.payload_keys),
    )
    audit = open_audit_store(spec.audit_store, AuditKeys.for_writer(SigningKey.generate()))
    workers: Sequence[Worker] = (
        _engine_worker(client, spec, spec.engine_queue, audit, FaultPlan()),
        _engine_worker(client, spec, spec.compensate_queue, audit, parse_faults(COMPENSATE_FAULTS)),
        _bench_worker(client, spec),
    )
    async with AsyncExitStack() as stack:
        for worker in workers:
            await stack.enter_async_context(worker)
        yield
    audit.close_connections()
