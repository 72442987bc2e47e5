"""The Python client services use: start any registered saga idempotently, read, wait, operate.

Sagas are addressed by (saga type, idempotency key): `start(saga_type, request)`, then
`saga(saga_type, key)` for the handle that views, waits for, cancels and operates it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecution,
    WorkflowExecutionDescription,
    WorkflowExecutionStatus,
    WorkflowHandle,
)
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
)
from temporalio.common import WorkflowIDReusePolicy as ReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._account_checks import check_accounts
from sagas.client._bulk_actions import BulkActions
from sagas.client._connect import connect_temporal
from sagas.client._launch import Launch, shown_status
from sagas.client._operator_actions import OperatorActions
from sagas.client._operator_credentials import OperatorCredential, configured_operator
from sagas.client._process_exit import collect_before_exit
from sagas.client._reconcile_actions import ReconcileActions
from sagas.client._recoveries import NOT_RECOVERY, SagaRecoveries, quoted
from sagas.client._saga_handle import SagaHandle
from sagas.client._schedules import SagaSchedules
from sagas.client._standing import CLOSED_FROM_OUTSIDE, ListedSaga, is_killed, listed_saga
from sagas.codec import refuse_plain_text_start
from sagas.engine import (
    AUDIT_COMPLETED_MEMO,
    FINGERPRINT_MEMO,
    MONEY_MEMO,
    OPEN_SAGA_STATUSES,
    RECOVERY_WORKFLOW,
    SAGA_STATUS,
    SAGA_TYPE,
    SAGA_WAITING_ON,
    SAGA_WAITING_SINCE,
    FailureReason,
    SagaMoney,
    SagaOutcome,
    SagaRequest,
    SagaStatus,
    deadline_pair,
    killed_saga_id,
    saga_id,
)
from sagas.foundations import (
    IdempotencyConflictError,
    InvalidRequestError,
    LedgerUnavailableError,
    Settings,
    TransientError,
)
from sagas.ledger import Ledger
from sagas.reconcile import DEFAULT_MAX_BYTES, Reconciliation
from sagas.registry import SagaRegistry, built_in_registry, load_registry

RECOVERY = f"WorkflowType = '{RECOVERY_WORKFLOW}'"
KILLED_RUN = (
    f"({NOT_RECOVERY} AND ExecutionStatus IN ({quoted(list(CLOSED_FROM_OUTSIDE.values()))}) "
    f"AND {SAGA_STATUS.name} IN ({quoted(OPEN_SAGA_STATUSES)}))"
)
"""A saga's run that Temporal closed while the engine showed it open: its recovery's status is
the saga's."""


class FundsagaClient:
    """Launch and follow sagas of every registered type.

    With a ledger, a request's accounts are checked before anything starts: each exists, takes
    new movements, and holds the currency the request moves on it (`check_accounts`).
    """

    _namespace_checked = False
    """Whether this client asked its namespace if its deployment encrypts."""

    def __init__(
        self,
        temporal: Client,
        task_queue: str,
        ledger: Ledger | None = None,
        *,
        registry: SagaRegistry | None = None,
        audit_completed: bool = False,
        step_mode: str = "activity",
        workflow_types: Mapping[str, str] | None = None,
        operator: OperatorCredential | None = None,
    ) -> None:
        """`workflow_types` replaces the workflow type a saga type starts as, by saga type
        (tests, benchmarks); `operator` is who this client's operator actions are by, with the
        proof of it (None: its operator actions are refused)."""
        collect_before_exit()  # also for a Temporal client connected without connect_temporal
        self.operator = operator
        self.temporal = temporal
        self.task_queue = task_queue
        self.ledger = ledger
        self.registry = registry or built_in_registry()
        self.audit_completed = audit_completed
        self.step_mode = step_mode
        self.workflow_types = dict(workflow_types or {})

    @classmethod
    async def connect(cls, settings: Settings, *, with_ledger: bool = True) -> FundsagaClient:
        """A client on TEMPORAL_ADDRESS, with the ledger of FUNDSAGA_DATABASE_URL unless
        `with_ledger` is False; `async with` it to close its database connections at the end."""
        timeouts = settings.database_timeouts()
        ledger = Ledger.from_url(settings.database_url, timeouts=timeouts) if with_ledger else None
        return cls.configured(await connect_temporal(settings), settings, ledger)

    async def __aenter__(self) -> FundsagaClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the ledger's database connections. The SDK has no close for the Temporal
        client: it goes with its last reference, and at the latest as the process exits."""
        if self.ledger is not None:
            self.ledger.close_connections()

    @classmethod
    def configured(
        cls, temporal: Client, settings: Settings, ledger: Ledger | None
    ) -> FundsagaClient:
        """A client on `temporal` with the task queue, saga types, audit, step mode and operator
        of `settings`."""
        return cls(
            temporal,
            settings.task_queue,
            ledger,
            registry=load_registry(settings.saga_module_names),
            audit_completed=settings.audit_completed,
            step_mode=settings.step_mode,
            operator=configured_operator(settings),
        )

    def schedules(self) -> SagaSchedules:
        """Schedules that start sagas of any registered type on this client's task queue."""
        return SagaSchedules(
            self.temporal,
            self.task_queue,
            self.registry,
            self.operator,
            audit_completed=self.audit_completed,
            check_request=self._check_accounts if self.ledger is not None else None,
        )

    def recoveries(self) -> SagaRecoveries:
        """Killed sagas on this client's task queue and their recoveries by two operators."""
        return SagaRecoveries(self.temporal, self.task_queue, self.operator)

    def bulk_actions(self) -> BulkActions:
        """Operator actions on every parked saga a filter selects, one audited update each."""
        return BulkActions(self.temporal, self.task_queue, self.registry, self.operator)

    def operator_actions(self) -> OperatorActions:
        """Verified operator actions outside a saga: on accounts, and funding by two."""
        return OperatorActions(self.temporal, self.task_queue, self.operator)

    def reconcile_actions(
        self, books: Reconciliation, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> ReconcileActions:
        """Statements imported and breaks explained as this client's operator, by the worker;
        `books` only reads, a file over `max_bytes` is refused before it is sent."""
        return ReconcileActions(self.operator_actions(), books, max_bytes)

    async def start(
        self, saga_type: str, request: SagaRequest | Mapping[str, Any]
    ) -> WorkflowHandle[Any, SagaOutcome]:
        """Start the saga, or return the one already started with this key and request.

        The same key with a different request raises IdempotencyConflictError; bad input raises
        InvalidRequestError naming the field, before anything starts. A key whose latest saga was
        REJECTED for its input (it took no effect) may carry a corrected request: that start
        begins a new run under the same saga id.

        While the ledger cannot answer the account checks (its database down, restarting, busy
        or dropping connections), it raises LedgerUnavailableError with nothing started: the
        same start again, with the same key, is safe and starts the saga once the ledger is back.
        """
        return (await self.launch(saga_type, request)).handle

    async def launch(self, saga_type: str, request: SagaRequest | Mapping[str, Any]) -> Launch:
        """`start`, telling whether this call began a run or found the key's saga, and its
        status: a caller that must not report a start that did not happen reads `started`."""
        parsed = self._parse(saga_type, request)
        try:
            if self.ledger is not None:
                # The ledger's reads block: on a thread, a service's other starts go on meanwhile.
                await asyncio.to_thread(self._check_accounts, parsed)
        except InvalidRequestError:
            # A retried start finds its saga, whose account may have been refused since.
            if (found := await self._already_started(saga_type, parsed)) is None:
                raise
            return found
        await self._refuse_plain_text()
        try:
            started = await self._start(saga_type, parsed, ReusePolicy.REJECT_DUPLICATE)
        except WorkflowAlreadyStartedError:
            # Only a second start pays for the describe that tells a retry from a conflict.
            existing = self.saga(saga_type, parsed.idempotency_key).workflow
            description = await existing.describe()
            if not await _rejected_input(existing, description):
                return await _found(existing, description, parsed.fingerprint())
            try:
                started = await self._start(saga_type, parsed, ReusePolicy.ALLOW_DUPLICATE)
            except WorkflowAlreadyStartedError:  # another caller reused the key first
                return await _found(existing, await existing.describe(), parsed.fingerprint())
        return Launch(started, started=True, status=SagaStatus.RUNNING)

    async def _already_started(self, saga_type: str, request: SagaRequest) -> Launch | None:
        existing = self.saga(saga_type, request.idempotency_key).workflow
        try:
            description = await existing.describe()
        except RPCError as error:
            if error.status is RPCStatusCode.NOT_FOUND:
                return None
            raise
        if (await description.memo()).get(FINGERPRINT_MEMO) != request.fingerprint():
            return None
        return Launch(existing, started=False, status=shown_status(description))

    async def _refuse_plain_text(self) -> None:
        """PlainTextRefusedError before anything starts, when this client has no payload keys
        and its namespace's deployment encrypts; asked once per client."""
        if not self._namespace_checked:
            await refuse_plain_text_start(self.temporal)
            self._namespace_checked = True

    def workflow_type(self, saga_type: str) -> str:
        """The workflow type sagas of `saga_type` start as from this client, by its step mode."""
        return self.workflow_types.get(saga_type) or self.registry.get(saga_type).workflow_type(
            self.step_mode
        )

    def saga(self, saga_type: str, idempotency_key: str) -> SagaHandle:
        """The saga of this type and key, to view, wait for, cancel or operate (no RPC)."""
        definition = self.registry.get(saga_type).definition
        return SagaHandle(
            self.temporal,
            definition.saga_type,
            idempotency_key,
            self.operator,
            self.ledger,
            definition=definition,
        )

    async def list_sagas(
        self,
        saga_type: str | None = None,
        status: SagaStatus | None = None,
        *,
        waiting: bool = False,
    ) -> list[tuple[str, str, str]]:
        """(saga id, saga type, status) of each saga `sagas()` lists; `waiting`: only those
        waiting out a fault of the infrastructure now."""
        if waiting:
            waits = await self.waiting_sagas(saga_type, status)
            return [(saga.saga_id, saga.saga_type, saga.status.value) for saga in waits]
        return [
            (s.saga_id, s.saga_type, s.status.value) for s in await self.sagas(saga_type, status)
        ]

    async def sagas(
        self, saga_type: str | None = None, status: SagaStatus | None = None
    ) -> list[ListedSaga]:
        """Every saga on this client's task queue, newest first, optionally of one type and
        status: each with its status as `saga_standing` decides it (as `SagaHandle.read()`
        does) and its money from its memo. One visibility query lists the sagas and their
        recoveries together; no worker is asked.

        A saga closed from outside shows as KILLED until its recovery is approved, then with
        its recovery's status; one whose execution was deleted while open shows as KILLED once
        the collector found it. Every run of a key is listed (a REJECTED run and the corrected
        one after it); a run that continued as new is not, its successor is."""
        wanted = None if status is None else SagaStatus(status)
        runs: list[WorkflowExecution] = []
        recoveries: dict[str, WorkflowExecution] = {}
        async for execution in self.temporal.list_workflows(self._listing(saga_type, wanted)):
            if execution.workflow_type == RECOVERY_WORKFLOW:
                killed = killed_saga_id(execution.id)
                if killed is not None:
                    recoveries.setdefault(killed, execution)
            elif execution.status is not WorkflowExecutionStatus.CONTINUED_AS_NEW:
                runs.append(execution)
        found = [
            await listed_saga(run, recoveries.get(run.id) if is_killed(run) else None)
            for run in runs
        ]
        listed = {run.id for run in runs}
        found += [
            await listed_saga(None, recovery)
            for saga, recovery in recoveries.items()
            if saga not in listed
        ]
        return [saga for saga in found if wanted is None or saga.status is wanted]

    def _listing(self, saga_type: str | None, wanted: SagaStatus | None) -> str:
        """The visibility query of `sagas()`: the sagas (of `wanted`'s status, and every killed
        one, whose recovery may carry it) and their recoveries."""
        clauses = [f"{SAGA_TYPE.name} IS NOT NULL", f"TaskQueue = '{self.task_queue}'"]
        if saga_type is not None:
            clauses.append(f"{SAGA_TYPE.name} = '{self.registry.get(saga_type).name}'")
        if wanted is None:
            return " AND ".join(clauses)
        either = [KILLED_RUN, RECOVERY]
        if wanted is not SagaStatus.KILLED:
            mine = [NOT_RECOVERY, f"{SAGA_STATUS.name} = '{wanted.value}'"]
            if not wanted.is_terminal:
                mine.append("ExecutionStatus = 'Running'")
            either.insert(0, f"({' AND '.join(mine)})")
        return " AND ".join([*clauses, f"({' OR '.join(either)})"])

    async def waiting_sagas(
        self, saga_type: str | None = None, status: SagaStatus | None = None
    ) -> list[WaitingSaga]:
        """The sagas on this client's task queue waiting out a fault of the infrastructure now,
        newest first, each with its fault and since when; optionally of one type and status."""
        clauses = self._listed(saga_type)
        clauses += ["ExecutionStatus = 'Running'", f"{SAGA_WAITING_ON.name} != ''"]
        if status is not None:
            clauses.append(f"{SAGA_STATUS.name} = '{SagaStatus(status).value}'")
        found = []
        async for execution in self.temporal.list_workflows(" AND ".join(clauses)):
            attributes = execution.typed_search_attributes
            shown = SagaStatus(attributes.get(SAGA_STATUS) or SagaStatus.RUNNING)
            fault = attributes.get(SAGA_WAITING_ON) or ""
            since = attributes.get(SAGA_WAITING_SINCE)
            saga_type_of = attributes.get(SAGA_TYPE) or ""
            found.append(WaitingSaga(execution.id, saga_type_of, shown, fault, since))
        return found

    def _listed(self, saga_type: str | None) -> list[str]:
        """The clauses every listing starts with: sagas (not their recoveries) on this task
        queue, of `saga_type` when given."""
        clauses = [f"{SAGA_TYPE.name} IS NOT NULL", f"TaskQueue = '{self.task_queue}'"]
        clauses.append(NOT_RECOVERY)
        if saga_type is not None:
            clauses.append(f"{SAGA_TYPE.name} = '{self.registry.get(saga_type).name}'")
        return clauses

    def _parse(self, saga_type: str, request: SagaRequest | Mapping[str, Any]) -> SagaRequest:
        return self.registry.parse_request(saga_type, request)

    def _check_accounts(self, request: SagaRequest) -> None:
        if self.ledger is None:
            return
        try:
            check_accounts(self.ledger, request)
        except TransientError as fault:
            raise LedgerUnavailableError(
                f"the ledger could not check the accounts of {request.idempotency_key!r} "
                f"({type(fault).__name__}: {fault}); nothing started: start it again"
            ) from fault

    async def _start(
        self, saga_type: str, request: SagaRequest, reuse: ReusePolicy
    ) -> WorkflowHandle[Any, SagaOutcome]:
        handle: WorkflowHandle[Any, SagaOutcome] = await self.temporal.start_workflow(
            self.workflow_type(saga_type),
            request,
            id=saga_id(saga_type, request.idempotency_key),
            task_queue=self.task_queue,
            result_type=SagaOutcome,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
            id_reuse_policy=reuse,
            memo={
                FINGERPRINT_MEMO: request.fingerprint(),
                AUDIT_COMPLETED_MEMO: self.audit_completed,
                MONEY_MEMO: SagaMoney.of(self.registry.get(saga_type).definition, request).memo(),
            },
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(SAGA_TYPE, saga_type),
                    SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
                    deadline_pair(datetime.now(UTC), request.deadline_seconds),
                ]
            ),
            static_summary=request.summary(),
        )
        return handle


@dataclass(frozen=True)
class WaitingSaga:
    """A saga waiting out a fault of the infrastructure, as Temporal's visibility lists it: it
    goes on by itself once the fault passes."""

    saga_id: str
    saga_type: str
    status: SagaStatus
    """RUNNING or COMPENSATING: a wait does not change it."""
    waiting_on: str
    """The fault's error type, say `DatabaseBusyError` (its `SagaWaitingOn`)."""
    waiting_since: datetime | None
    """When the wait began (its `SagaWaitingSince`)."""

    def waited(self, now: datetime) -> timedelta | None:
        """How long it has waited at `now`; None when the start of the wait is not known."""
        if self.waiting_since is None:
            return None
        return max(now - self.waiting_since, timedelta())


async def _found(
    handle: WorkflowHandle[Any, SagaOutcome],
    description: WorkflowExecutionDescription,
    fingerprint: str,
) -> Launch:
    """The key's existing saga when it was started with the same request; else
    IdempotencyConflictError naming how that saga stands."""
    status = shown_status(description)
    if (await description.memo()).get(FINGERPRINT_MEMO) != fingerprint:
        raise IdempotencyConflictError(
            f"idempotency key of saga {handle.id} is already used by a different request "
            f"(that saga is {status.value}); nothing started"
        )
    return Launch(handle, started=False, status=status)


async def _rejected_input(
    handle: WorkflowHandle[Any, SagaOutcome], description: WorkflowExecutionDescription
) -> bool:
    """Whether the saga under this id ended REJECTED for its input: it took no effect, so the
    key may carry a corrected request."""
    if description.typed_search_attributes.get(SAGA_STATUS) != SagaStatus.REJECTED.value:
        return False
    failure = (await handle.result()).failure
    return failure is not None and failure.reason is FailureReason.INVALID_INPUT
