"""The Python client services use: start transfers idempotently, read, wait, cancel, operate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
)
from temporalio.common import WorkflowIDReusePolicy as ReusePolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from sagas.engine import (
    AUDIT_COMPLETED_MEMO,
    RESOLVE_UPDATE,
    RETRY_UPDATE,
    SAGA_STATUS,
    SAGA_TYPE,
    VIEW_QUERY,
    FailureReason,
    OperatorAction,
    SagaOutcome,
    SagaStatus,
    SagaView,
    completed_or_raise,
)
from sagas.foundations import (
    IdempotencyConflictError,
    InvalidRequestError,
    NotParkedError,
    SagaNotFoundError,
    Settings,
)
from sagas.ledger import Ledger
from sagas.transfer import TransferRequest

TRANSFER_WORKFLOW = "TransferWorkflow"
TRANSFER_WORKFLOW_BY_STEP_MODE = {
    "activity": TRANSFER_WORKFLOW,
    "local": "TransferLocalStepsWorkflow",
}
"""The workflow type a transfer starts as, by FUNDSAGA_STEP_MODE; every worker runs both."""
FINGERPRINT_MEMO = "request_fingerprint"


def transfer_workflow_id(idempotency_key: str) -> str:
    """The saga id: a stable function of the caller's idempotency key."""
    return f"transfer-{idempotency_key}"


async def connect_temporal(settings: Settings) -> Client:
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
    )


class FundsagaClient:
    """Launch and follow transfer sagas.

    With a ledger, requests are checked against it (unknown accounts) before anything starts.
    """

    def __init__(
        self,
        temporal: Client,
        task_queue: str,
        ledger: Ledger | None = None,
        *,
        audit_completed: bool = False,
        workflow_type: str = TRANSFER_WORKFLOW,
    ) -> None:
        self.temporal = temporal
        self.task_queue = task_queue
        self.ledger = ledger
        self.audit_completed = audit_completed
        self.workflow_type = workflow_type

    @classmethod
    async def connect(cls, settings: Settings, *, with_ledger: bool = True) -> FundsagaClient:
        ledger = Ledger.from_url(settings.database_url) if with_ledger else None
        return cls.configured(await connect_temporal(settings), settings, ledger)

    @classmethod
    def configured(
        cls, temporal: Client, settings: Settings, ledger: Ledger | None
    ) -> FundsagaClient:
        """A client on `temporal` with the task queue, audit and step mode of `settings`."""
        return cls(
            temporal,
            settings.task_queue,
            ledger,
            audit_completed=settings.audit_completed,
            workflow_type=TRANSFER_WORKFLOW_BY_STEP_MODE[settings.step_mode],
        )

    async def start_transfer(
        self, request: TransferRequest | Mapping[str, Any]
    ) -> WorkflowHandle[Any, SagaOutcome]:
        """Start the transfer, or return the saga already started with this key and request."""
        if not isinstance(request, TransferRequest):
            request = TransferRequest.parse(dict(request))
        self._check_accounts(request)
        try:
            return await self._start(request, ReusePolicy.REJECT_DUPLICATE)
        except WorkflowAlreadyStartedError:
            # Only a second start pays for the describe that tells a retry from a conflict.
            workflow_id = transfer_workflow_id(request.idempotency_key)
            handle = self.temporal.get_workflow_handle(workflow_id, result_type=SagaOutcome)
            if await _rejected_input(handle):
                return await self._start(request, ReusePolicy.ALLOW_DUPLICATE)
            await self._check_same_request(handle, request.fingerprint())
        return handle

    async def _start(
        self, request: TransferRequest, reuse: ReusePolicy
    ) -> WorkflowHandle[Any, SagaOutcome]:
        handle: WorkflowHandle[Any, SagaOutcome] = await self.temporal.start_workflow(
            self.workflow_type,
            request,
            id=transfer_workflow_id(request.idempotency_key),
            task_queue=self.task_queue,
            result_type=SagaOutcome,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
            id_reuse_policy=reuse,
            memo={
                FINGERPRINT_MEMO: request.fingerprint(),
                AUDIT_COMPLETED_MEMO: self.audit_completed,
            },
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(SAGA_TYPE, "transfer"),
                    SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
                ]
            ),
            static_summary=request.summary(),
        )
        return handle

    def _check_accounts(self, request: TransferRequest) -> None:
        if self.ledger is None:
            return
        for field in ("source_account", "destination_account"):
            account_id = getattr(request, field)
            if self.ledger.find_account(account_id) is None:
                raise InvalidRequestError(field, f"unknown account {account_id!r}")

    async def _check_same_request(self, handle: WorkflowHandle[Any, Any], fingerprint: str) -> None:
        description = await handle.describe()
        existing = (await description.memo()).get(FINGERPRINT_MEMO)
        if existing != fingerprint:
            raise IdempotencyConflictError(
                f"idempotency key of saga {handle.id} is already used by a different request"
            )

    def handle(self, idempotency_key: str) -> WorkflowHandle[Any, SagaOutcome]:
        return self.temporal.get_workflow_handle(
            transfer_workflow_id(idempotency_key), result_type=SagaOutcome
        )

    async def view(self, idempotency_key: str) -> SagaView:
        """Status, snapshots and compensation stack, from the saga's query.

        When the latest run was refused by the launch fence, the view is that of the run that
        took effects, while Temporal still holds its history.
        """
        handle = self.handle(idempotency_key)
        view = await _query_view(handle)
        claimed_by = view.failure.claimed_by if view.failure is not None else None
        if claimed_by is None:
            return view
        effects = self.temporal.get_workflow_handle(handle.id, run_id=claimed_by)
        try:
            return await _query_view(effects)
        except SagaNotFoundError:
            return view

    async def wait(self, idempotency_key: str) -> SagaOutcome:
        """Wait for the saga to close: its outcome if COMPLETED.

        Raises the SagaNotCompletedError subclass of its status (carrying the outcome) for every
        other end, and WorkflowFailureError for an engine fault.
        """
        return completed_or_raise(await self.outcome(idempotency_key))

    async def outcome(self, idempotency_key: str) -> SagaOutcome:
        """Wait for the saga to close: its outcome whatever the status, for reports and tools.

        A service that acts on the result uses `wait()`, which only returns for COMPLETED.
        """
        outcome: SagaOutcome = await self.handle(idempotency_key).result()
        return outcome

    async def cancel(self, idempotency_key: str) -> None:
        """Ask the saga to stop; it compensates what it did."""
        await self.handle(idempotency_key).cancel()

    async def is_closed(self, idempotency_key: str) -> bool:
        description = await self.handle(idempotency_key).describe()
        return description.status is not WorkflowExecutionStatus.RUNNING

    async def retry_compensation(self, idempotency_key: str, action: OperatorAction) -> SagaStatus:
        return await self._operator_update(idempotency_key, RETRY_UPDATE, action)

    async def resolve(self, idempotency_key: str, action: OperatorAction) -> SagaStatus:
        return await self._operator_update(idempotency_key, RESOLVE_UPDATE, action)

    async def _operator_update(
        self, idempotency_key: str, update: str, action: OperatorAction
    ) -> SagaStatus:
        try:
            status: SagaStatus = await self.handle(idempotency_key).execute_update(
                update, action, result_type=SagaStatus
            )
        except WorkflowUpdateFailedError as err:
            cause = err.cause
            if isinstance(cause, ApplicationError) and cause.type == NotParkedError.__name__:
                raise NotParkedError(cause.message) from err
            raise
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise NotParkedError(
                    f"saga {transfer_workflow_id(idempotency_key)} is closed or unknown"
                ) from err
            raise
        return status

    async def list_transfers(self, status: SagaStatus | None = None) -> list[tuple[str, str]]:
        """(saga id, SagaStatus) of every transfer, newest first, optionally of one status."""
        query = f"{SAGA_TYPE.name} = 'transfer'"
        if status is not None:
            query += f" AND {SAGA_STATUS.name} = '{status.value}'"
        found: list[tuple[str, str]] = []
        async for execution in self.temporal.list_workflows(query):
            found.append((execution.id, execution.typed_search_attributes.get(SAGA_STATUS) or ""))
        return found


async def _rejected_input(handle: WorkflowHandle[Any, SagaOutcome]) -> bool:
    """Whether the saga under this id ended REJECTED for its input: it took no effect, so the
    key may carry a corrected request."""
    description = await handle.describe()
    if description.typed_search_attributes.get(SAGA_STATUS) != SagaStatus.REJECTED.value:
        return False
    failure = (await handle.result()).failure
    return failure is not None and failure.reason is FailureReason.INVALID_INPUT


async def _query_view(handle: WorkflowHandle[Any, Any]) -> SagaView:
    try:
        view: SagaView = await handle.query(VIEW_QUERY, result_type=SagaView)
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise SagaNotFoundError(f"no saga {handle.id}") from err
        raise
    return view
