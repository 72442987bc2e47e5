"""Killed sagas: found in Temporal's visibility, each given its one recovery workflow, and
recovered by two verified operators (one proposes, another approves)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecution,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._history_request import request_in_history
from sagas.client._operator_credentials import (
    OperatorCredential,
    bound_token,
    required_operator,
)
from sagas.client._standing import CLOSED_FROM_OUTSIDE, DELETED
from sagas.engine import (
    APPROVE_RECOVERY_UPDATE,
    KILLED_EXECUTION_STATUSES,
    OPEN_SAGA_STATUSES,
    PROPOSE_RECOVERY_UPDATE,
    RECOVERY_VIEW_QUERY,
    RECOVERY_WORKFLOW,
    SAGA_STATUS,
    SAGA_TYPE,
    VIEW_QUERY,
    KilledSaga,
    OperatorAct,
    OperatorBinding,
    RecoveryDecision,
    RecoveryView,
    RunClaim,
    SagaStatus,
    SagaView,
    killed_saga_id,
    recovery_id,
    view_from,
)
from sagas.foundations import (
    FundsagaError,
    OperatorRefusedError,
    ProposalStaleError,
    RecoveryRefusedError,
    SagaNotFoundError,
    SameOperatorError,
)

_BATCH = 50
"""Saga ids per visibility query when looking for deleted executions."""
_REFUSALS: dict[str, type[FundsagaError]] = {
    error.__name__: error
    for error in (OperatorRefusedError, ProposalStaleError, SameOperatorError, RecoveryRefusedError)
}


def _closed_as(status: WorkflowExecutionStatus | None) -> str:
    """As visibility names it: Terminated, TimedOut, Failed."""
    if status is None:
        return "Unknown"
    return CLOSED_FROM_OUTSIDE.get(status, status.name.title())


def quoted(values: Sequence[str]) -> str:
    """`'a', 'b'`: values for a visibility query's `IN (...)`."""
    return ", ".join(f"'{value}'" for value in values)


KILLED_CLAUSES = (
    f"ExecutionStatus IN ({quoted(KILLED_EXECUTION_STATUSES)})",
    f"{SAGA_STATUS.name} IN ({quoted(OPEN_SAGA_STATUSES)})",
)
"""A saga execution that closed while the engine still showed it open."""
NOT_RECOVERY = f"WorkflowType != '{RECOVERY_WORKFLOW}'"


@dataclass(frozen=True)
class SagaRecoveries:
    """The killed sagas on one task queue and their recoveries."""

    temporal: Client
    task_queue: str
    operator: OperatorCredential | None = None

    def _query(self, *clauses: str) -> str:
        return " AND ".join((f"TaskQueue = '{self.task_queue}'", *clauses))

    async def killed(self, saga_type: str | None = None) -> list[WorkflowExecution]:
        """Every saga execution (of `saga_type`, or of any type) closed from outside."""
        type_clause = (
            f"{SAGA_TYPE.name} = '{saga_type}'" if saga_type else f"{SAGA_TYPE.name} IS NOT NULL"
        )
        query = self._query(type_clause, NOT_RECOVERY, *KILLED_CLAUSES)
        return [execution async for execution in self.temporal.list_workflows(query)]

    async def recovery_statuses(self, saga_type: str | None = None) -> dict[str, str]:
        """SagaStatus of each recovery, by the killed saga's id: KILLED until it is approved."""
        clauses = [f"WorkflowType = '{RECOVERY_WORKFLOW}'"]
        if saga_type:
            clauses.append(f"{SAGA_TYPE.name} = '{saga_type}'")
        found: dict[str, str] = {}
        async for execution in self.temporal.list_workflows(self._query(*clauses)):
            saga_id = killed_saga_id(execution.id)
            if saga_id is not None:
                found[saga_id] = execution.typed_search_attributes.get(SAGA_STATUS) or ""
        return found

    async def awaiting(
        self, saga_type: str | None = None, status: SagaStatus = SagaStatus.KILLED
    ) -> list[tuple[str, str]]:
        """(saga id, saga type) of each killed saga whose recovery waits for its operators: to
        be approved (KILLED), or parked on the way (NEEDS_ATTENTION)."""
        clauses = [
            f"WorkflowType = '{RECOVERY_WORKFLOW}'",
            "ExecutionStatus = 'Running'",
            f"{SAGA_STATUS.name} = '{status.value}'",
        ]
        if saga_type:
            clauses.append(f"{SAGA_TYPE.name} = '{saga_type}'")
        found = []
        async for execution in self.temporal.list_workflows(self._query(*clauses)):
            saga_id = killed_saga_id(execution.id)
            if saga_id is not None:
                found.append((saga_id, execution.typed_search_attributes.get(SAGA_TYPE) or ""))
        return found

    async def open_deleted(self, claims: Sequence[RunClaim]) -> list[str]:
        """Start the recovery of each claimed saga that Temporal no longer knows (its execution
        deleted while open): it records the saga's effects; with no history, its request is
        gone and a proposal is refused. The ids of those started."""
        started = []
        for batch in (claims[i : i + _BATCH] for i in range(0, len(claims), _BATCH)):
            ids = [claim.saga_id for claim in batch]
            listed = [recovery_id(saga) for saga in ids] + ids
            query = f"WorkflowId IN ({quoted(listed)})"
            known = {execution.id async for execution in self.temporal.list_workflows(query)}
            for claim in batch:
                if claim.saga_id in known or recovery_id(claim.saga_id) in known:
                    continue
                deleted = KilledSaga(
                    saga_id=claim.saga_id,
                    saga_type=claim.saga_type,
                    run_id="",
                    run_chain=claim.run_chain,
                    closed_as=DELETED,
                )
                if await self._start(deleted):
                    started.append(claim.saga_id)
        return started

    async def open_recoveries(self, saga_type: str | None = None) -> list[str]:
        """Start the recovery of every killed saga that has none yet; the ids of those started."""
        known = await self.recovery_statuses(saga_type)
        started = []
        for execution in await self.killed(saga_type):
            if execution.id not in known and await self.open_recovery(execution):
                started.append(execution.id)
        return started

    async def open_recovery(self, execution: WorkflowExecution) -> bool:
        """Start the killed saga's one recovery; False when it already has one (whatever its
        state: a saga is never recovered twice)."""
        killed = KilledSaga(
            saga_id=execution.id,
            saga_type=execution.typed_search_attributes.get(SAGA_TYPE) or "",
            run_id=execution.run_id,
            run_chain=execution.raw_info.first_run_id or execution.run_id,
            closed_as=_closed_as(execution.status),
            closed_at=execution.close_time,
            shown_as=execution.typed_search_attributes.get(SAGA_STATUS) or "",
            request=await request_in_history(self.temporal, execution.id, execution.run_id),
        )
        return await self._start(killed)

    async def _start(self, killed: KilledSaga) -> bool:
        try:
            await self.temporal.start_workflow(
                RECOVERY_WORKFLOW,
                killed,
                id=recovery_id(killed.saga_id),
                task_queue=self.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(SAGA_TYPE, killed.saga_type),
                        SearchAttributePair(SAGA_STATUS, SagaStatus.KILLED.value),
                    ]
                ),
                static_summary=f"recovery of {killed.saga_id} ({killed.closed_as.lower()})",
            )
        except WorkflowAlreadyStartedError:
            return False
        return True

    def _handle(self, saga_id: str) -> WorkflowHandle[Any, Any]:
        return self.temporal.get_workflow_handle(recovery_id(saga_id))

    async def saga_view(self, saga_id: str) -> SagaView:
        """The killed saga as its recovery runs it (snapshots, stack, failure), once approved."""
        try:
            raw = await self._handle(saga_id).query(VIEW_QUERY)
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no recovery of saga {saga_id}") from err
            raise
        return view_from(raw)

    async def view(self, saga_id: str) -> RecoveryView:
        """The recovery of the killed saga: its effects, proposal, approval and outcome."""
        try:
            view: RecoveryView | None = await self._handle(saga_id).query(
                RECOVERY_VIEW_QUERY, result_type=RecoveryView
            )
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no recovery of saga {saga_id}") from err
            raise
        if view is None:
            raise SagaNotFoundError(f"the recovery of saga {saga_id} has not read it yet")
        return view

    async def propose(self, saga_id: str, note: str) -> str:
        """Propose the recovery of the killed saga (found now if the collector has not yet);
        returns the proposal id that another operator's `approve` names."""
        await self._ensure_open(saga_id)
        proof = self._proof(saga_id, OperatorAct.PROPOSE_RECOVERY)
        proposal_id: str = await self._decide(
            PROPOSE_RECOVERY_UPDATE, saga_id, RecoveryDecision(note=note, proof=proof), str
        )
        return proposal_id

    async def approve(self, saga_id: str, proposal_id: str, note: str = "") -> SagaStatus:
        """Approve another operator's proposal: the recovery runs; returns the saga's status
        once it closed it (or parked on a compensation or step that needs an operator)."""
        proof = self._proof(saga_id, OperatorAct.APPROVE_RECOVERY, proposal_id)
        decision = RecoveryDecision(note=note, proposal_id=proposal_id, proof=proof)
        status: SagaStatus = await self._decide(
            APPROVE_RECOVERY_UPDATE, saga_id, decision, SagaStatus
        )
        return status

    async def _ensure_open(self, saga_id: str) -> None:
        try:
            await self._handle(saga_id).describe()
            return
        except RPCError as err:
            if err.status is not RPCStatusCode.NOT_FOUND:
                raise
        for execution in await self.killed():
            if execution.id == saga_id:
                await self.open_recovery(execution)
                return
        raise RecoveryRefusedError(
            f"saga {saga_id} is not killed: its execution is open, closed by the engine, or "
            "unknown on this task queue"
        )

    def operator_name(self) -> str:
        """Who this client's recovery decisions are by, as its credential names them."""
        return required_operator(self.operator).name

    def _proof(self, saga_id: str, act: OperatorAct, proposal: str = "") -> str:
        """A token for `act` on the saga's recovery (approving: of `proposal`)."""
        binding = OperatorBinding(workflow_id=recovery_id(saga_id), action=act, proposal=proposal)
        return bound_token(self.operator, binding)

    async def _decide(
        self, update: str, saga_id: str, decision: RecoveryDecision, result: type
    ) -> Any:
        handle = self._handle(saga_id)
        try:
            return await handle.execute_update(update, decision, result_type=result)
        except WorkflowUpdateFailedError as err:
            cause = err.cause
            if isinstance(cause, ApplicationError) and cause.type in _REFUSALS:
                raise _REFUSALS[cause.type](cause.message) from err
            raise
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise await self._closed(saga_id) from err
            raise

    async def _closed(self, saga_id: str) -> RecoveryRefusedError:
        """Why an update found no open recovery: it already ran, or there is none."""
        try:
            described = await self._handle(saga_id).describe()
        except RPCError:
            return RecoveryRefusedError(f"saga {saga_id} has no recovery")
        status = described.typed_search_attributes.get(SAGA_STATUS)
        return RecoveryRefusedError(
            f"saga {saga_id} was already recovered ({status}): a saga is recovered once"
        )
