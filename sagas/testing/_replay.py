"""The determinism guard of a saga type: record its histories, and replay them against today's
workflow code. Recording one type writes only that type's files."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle, WorkflowHistory
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from sagas.audit import AuditStore
from sagas.client import FundsagaClient, SagaHandle
from sagas.codec import converter_for
from sagas.engine import SagaOutcome, SagaStatus, parse_faults
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry, workflow_type_name
from sagas.testing._environments import (
    dev_server_environment,
    directory_audit_store,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
)
from sagas.testing._histories import (
    PARKING,
    Outcome,
    history_key,
    history_path,
    outcome_faults,
    outcomes,
)
from sagas.testing._identity import kit_operator
from sagas.testing._matrix_run import ClearableFaults
from sagas.testing._operators import MAKER, resolve_by_two
from sagas.testing._scenario import SagaScenario
from sagas.worker import saga_workflow_runner

NOTE = "recorded for the determinism guard"


def load_history(path: Path) -> WorkflowHistory:
    """A recorded history; its file is named after its workflow id (plus any archive suffix)."""
    return WorkflowHistory.from_json(path.stem, path.read_text())


def _workflow_type_of(path: Path) -> str | None:
    events = json.loads(path.read_text()).get("events") or [{}]
    started = events[0].get("workflowExecutionStartedEventAttributes") or {}
    name = (started.get("workflowType") or {}).get("name")
    return name if isinstance(name, str) else None


@dataclass(frozen=True)
class ServerPorts:
    """The ports of the dev server a recording starts; None: a free one."""

    port: int | None = None
    http_port: int | None = None
    metrics_port: int | None = None


@dataclass(frozen=True)
class ReplayGuard:
    """The recorded histories of one saga type in `directory`, which other types may share."""

    scenario: SagaScenario
    directory: Path

    @property
    def workflow_types(self) -> dict[str, type]:
        return {workflow_type_name(cls): cls for cls in self.scenario.saga_type.workflows.values()}

    def expected(self) -> list[Path]:
        """One file per workflow type and outcome the saga can reach."""
        saga_type = self.scenario.saga_type
        return [
            history_path(self.directory, saga_type, cls, outcome)
            for cls in saga_type.workflows.values()
            for outcome in outcomes(saga_type.definition)
        ]

    def missing(self) -> list[Path]:
        return [path for path in self.expected() if not path.exists()]

    def histories(self) -> list[Path]:
        """Every history of this type's workflows in the directory, archived ones included."""
        return [
            path
            for path in sorted(self.directory.glob("*.json"))
            if _workflow_type_of(path) in self.workflow_types
        ]

    async def replay(self, path: Path) -> None:
        """Replay one history as a worker runs it; raises (NondeterminismError and the like)
        when today's code would run it differently."""
        workflows = list(self.workflow_types.values())
        replayer = Replayer(
            workflows=workflows,
            data_converter=converter_for(None),
            workflow_runner=saga_workflow_runner(*sorted({cls.__module__ for cls in workflows})),
        )
        await replayer.replay_workflow(load_history(path))

    async def record(
        self, env: WorkflowEnvironment | None = None, ports: ServerPorts | None = None
    ) -> list[Path]:
        """Run one saga per workflow type and outcome on a dev server (`env`, or one of its
        own on `ports`, free ones by default) and write their histories; files of other types
        are never touched."""
        if env is not None:
            return await _record_all(self, env)
        ports = ports or ServerPorts()
        async with dev_server_environment(
            ports.port, http_port=ports.http_port, metrics_port=ports.metrics_port
        ) as own:
            return await _record_all(self, own)


async def _record_all(guard: ReplayGuard, env: WorkflowEnvironment) -> list[Path]:
    guard.directory.mkdir(parents=True, exist_ok=True)
    saga_type = guard.scenario.saga_type
    written: list[Path] = []
    for step_mode, cls in saga_type.workflows.items():
        for outcome in outcomes(saga_type.definition):
            written.append(await _record_one(guard, env, step_mode, cls, outcome))
    return written


async def _record_one(
    guard: ReplayGuard, env: WorkflowEnvironment, step_mode: str, cls: type, outcome: Outcome
) -> Path:
    scenario, saga_type = guard.scenario, guard.scenario.saga_type
    key = history_key(cls, outcome)
    faults = ClearableFaults(parse_faults(outcome_faults(saga_type.definition, outcome)).rules)
    task_queue = new_task_queue()
    with _scratch(scenario) as (ledger, store):
        async with saga_worker(
            env, [saga_type], ledger, store, task_queue=task_queue, faults=faults, workflows=[cls]
        ):
            client = FundsagaClient(
                env.client,
                task_queue,
                ledger,
                registry=SagaRegistry([saga_type]),
                step_mode=step_mode,
                operator=kit_operator(MAKER),
            )
            handle = await client.start(saga_type.name, scenario.request(key))
            saga = client.saga(saga_type.name, key)
            if outcome in PARKING:
                await _wait_parked(saga, handle)
                faults.clear()
            now = await env.get_current_time()  # the workflows' clock, once it skipped
            if outcome is Outcome.RESOLVED:
                await resolve_by_two(saga, NOTE, issued_at=now)
            elif outcome in (Outcome.RETRIED, Outcome.FORWARD_RETRIED):
                await replace(saga, operator=kit_operator(MAKER, issued_at=now)).retry(NOTE)
            if outcome is not Outcome.NEEDS_ATTENTION:
                await handle.result()
            history = await handle.fetch_history()
    path = history_path(guard.directory, saga_type, cls, outcome)
    path.write_text(history.to_json() + "\n")
    return path


@contextmanager
def _scratch(scenario: SagaScenario) -> Iterator[tuple[Ledger, AuditStore]]:
    """A funded ledger and an audit store of their own, deleted after the recording."""
    with tempfile.TemporaryDirectory() as directory:
        ledger = sqlite_ledger(Path(directory))
        store = directory_audit_store(Path(directory) / "audit")
        try:
            scenario.fund(ledger)
            yield ledger, store
        finally:
            store.close_connections()
            ledger.close_connections()


async def _wait_parked(saga: SagaHandle, handle: WorkflowHandle[Any, SagaOutcome]) -> None:
    """Until the saga waits for the operator, its audit record written."""
    for _ in range(300):
        view = await saga.view()
        pending = (await handle.describe()).raw_description.pending_activities
        if view.status is SagaStatus.NEEDS_ATTENTION and not pending:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{handle.id} never parked")
