"""One saga read as `fundsaga sagas view` shows it: its standing, decided as `sagas list`
decides it, the view that goes with it (the killed run's, or its recovery's once approved), and
its money."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowExecution, WorkflowHandle, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._history_request import request_in_history
from sagas.client._standing import (
    ListedSaga,
    SagaStanding,
    is_killed,
    money_in_memo,
    saga_standing,
)
from sagas.engine import (
    RECOVERY_VIEW_QUERY,
    VIEW_QUERY,
    RecoveryView,
    SagaDefinition,
    SagaMoney,
    SagaStatus,
    SagaView,
    recovery_id,
    view_from,
)
from sagas.foundations import InvalidRequestError, SagaNotFoundError


@dataclass(frozen=True)
class SagaReading:
    """One saga as `fundsaga sagas view` shows it (`SagaHandle.read()`)."""

    listed: ListedSaga
    """As `sagas list` lists it: its standing (status, wait, killed and recovered) and money."""
    view: SagaView
    """Its snapshots, compensation stack and failure, with the standing's status and wait."""


async def standing_and_view(
    temporal: Client, saga_type: str, saga_id: str
) -> tuple[WorkflowExecution | None, SagaStanding, SagaView]:
    """The run the view shows (None: deleted while open), its standing, and its view with that
    standing's status and wait. The latest run, or the one that took effects when the launch
    fence refused the latest; SagaNotFoundError when Temporal knows neither run nor recovery."""
    latest = temporal.get_workflow_handle(saga_id)
    run = await _described(latest)
    view: SagaView | None = None
    if run is not None and not is_killed(run):
        view = await _query_view(latest)
        claimed_by = view.failure.claimed_by if view.failure is not None else None
        if claimed_by is not None:
            with contextlib.suppress(SagaNotFoundError):  # its history is gone: the latest run
                run, view = await _claimed(temporal.get_workflow_handle(saga_id, run_id=claimed_by))
    recovery = temporal.get_workflow_handle(recovery_id(saga_id))
    found = await _described(recovery) if run is None or is_killed(run) else None
    if run is None and found is None:
        raise SagaNotFoundError(f"no saga {saga_id}")
    standing = saga_standing(run, found)
    if view is None:
        view = await _killed_view(latest, recovery, run, standing, saga_type)
    shown = {
        "status": standing.status,
        "waiting_on": standing.waiting_on,
        "waiting_since": standing.waiting_since,
    }
    return run, standing, view.model_copy(update=shown)


async def money_of_run(
    temporal: Client, run: WorkflowExecution | None, definition: SagaDefinition[Any, Any] | None
) -> SagaMoney:
    """The run's money from its memo; when the memo holds none (a saga started by a client that
    keeps none there), from the request at the start of its history, parsed by its type."""
    if run is None:
        return SagaMoney()
    money = await money_in_memo(run)
    if money != SagaMoney() or definition is None:
        return money
    fields = await request_in_history(temporal, run.id, run.run_id)
    try:
        request = definition.request_type.model_validate(fields)
    except (ValueError, InvalidRequestError):  # a refused request: the saga is REJECTED
        return SagaMoney()
    return SagaMoney.of(definition, request)


async def _query_view(handle: WorkflowHandle[Any, Any]) -> SagaView:
    try:
        raw = await handle.query(VIEW_QUERY)
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise SagaNotFoundError(f"no saga {handle.id}") from err
        raise
    return view_from(raw)


async def _claimed(
    effects: WorkflowHandle[Any, Any],
) -> tuple[WorkflowExecution, SagaView]:
    """The run that took effects, its view queried first: a run whose history is gone raises
    SagaNotFoundError before it is described."""
    view = await _query_view(effects)
    return await effects.describe(), view


async def _killed_view(
    latest: WorkflowHandle[Any, Any],
    recovery: WorkflowHandle[Any, Any],
    run: WorkflowExecution | None,
    standing: SagaStanding,
    saga_type: str,
) -> SagaView:
    """A killed saga's view: its recovery's once approved (it runs as the saga), else the
    killed run's as it stood when it was closed, or for a deleted run, its snapshots as the
    recovery read them from the database."""
    if standing.recovery_id is not None and standing.status is not SagaStatus.KILLED:
        with contextlib.suppress(SagaNotFoundError, WorkflowQueryFailedError):
            return await _query_view(recovery)
    if run is not None:
        return await _query_view(latest)
    found: RecoveryView | None = await recovery.query(RECOVERY_VIEW_QUERY, result_type=RecoveryView)
    snapshots = found.effects.snapshots if found is not None else []
    return SagaView(
        saga_id=latest.id,
        saga_type=saga_type,
        status=standing.status,
        current_step=snapshots[-1].step_name if snapshots else None,
        snapshots=snapshots,
        compensation_stack=[],
        failure=None,
        compensations=[],
    )


async def _described(handle: WorkflowHandle[Any, Any]) -> WorkflowExecution | None:
    try:
        return await handle.describe()
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            return None
        raise
