"""The benchmark worker: the production worker for ENGINE, the same options for BARE and NAIVE."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Any
from unittest import mock

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from activities.bench import NaiveActivities, noop
from sagas._faults import FaultPlan, parse_faults
from sagas.app import _worker as _worker_module
from sagas.app import build_worker
from sagas.audit import AuditStore, open_audit_store
from sagas.bench._config import WorkerKnobs
from sagas.bench._engine_patches import apply_patches
from sagas.bench._setup import bench_ledger
from workflows.bench import BareWorkflow, NaiveTransferWorkflow

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

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerSpec:
        data: dict[str, Any] = json.loads(text)
        knobs = data["knobs"] | {"engine_patches": tuple(data["knobs"]["engine_patches"])}
        return cls(**(data | {"knobs": WorkerKnobs(**knobs)}))


def _extra_options(knobs: WorkerKnobs) -> dict[str, Any]:
    """Worker options build_worker does not take (yet): the knobs under measurement."""
    options: dict[str, Any] = {}
    if knobs.max_concurrent_workflow_tasks is not None:
        options["max_concurrent_workflow_tasks"] = knobs.max_concurrent_workflow_tasks
    if knobs.max_cached_workflows is not None:
        options["max_cached_workflows"] = knobs.max_cached_workflows
    if knobs.unsandboxed:
        options["workflow_runner"] = UnsandboxedWorkflowRunner()
    return options


def _knobs_into_build_worker(knobs: WorkerKnobs) -> Any:
    """Measure a knob on the production worker: build_worker's Worker gets the extra options."""
    return mock.patch.object(
        _worker_module, "Worker", functools.partial(Worker, **_extra_options(knobs))
    )


def _engine_worker(
    client: Client, spec: WorkerSpec, queue: str, audit: AuditStore, faults: FaultPlan
) -> Worker:
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal)
    with _knobs_into_build_worker(spec.knobs):
        return build_worker(
            client,
            queue,
            ledger,
            audit,
            faults,
            max_concurrent_activities=spec.knobs.max_concurrent_activities,
        )


def _bench_worker(client: Client, spec: WorkerSpec) -> Worker:
    """BARE and NAIVE, on the options build_worker gives the engine's worker."""
    ledger = bench_ledger(spec.database_url, spec.knobs.sqlite_journal)
    slots = spec.knobs.max_concurrent_activities
    return Worker(
        client,
        task_queue=spec.bench_queue,
        workflows=[BareWorkflow, NaiveTransferWorkflow],
        activities=[noop, *NaiveActivities(ledger).all()],
        activity_executor=ThreadPoolExecutor(max_workers=slots),
        max_concurrent_activities=slots,
        **_extra_options(spec.knobs),
    )


@asynccontextmanager
async def running_workers(spec: WorkerSpec) -> AsyncIterator[None]:
    client = await Client.connect(
        spec.address, namespace=spec.namespace, data_converter=pydantic_data_converter
    )
    apply_patches(spec.knobs.engine_patches)
    audit = open_audit_store(spec.audit_store)
    workers: Sequence[Worker] = (
        _engine_worker(client, spec, spec.engine_queue, audit, FaultPlan()),
        _engine_worker(client, spec, spec.compensate_queue, audit, parse_faults(COMPENSATE_FAULTS)),
        _bench_worker(client, spec),
    )
    async with AsyncExitStack() as stack:
        for worker in workers:
            await stack.enter_async_context(worker)
        yield
    audit.close()
