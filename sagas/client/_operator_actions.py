"""Operator actions on accounts: freeze, unfreeze and close as one verified operator, and
funding by two (one proposes, another approves). Each runs through the worker, which checks the
operator's proof before anything changes and writes the audit record naming them."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pydantic import BaseModel, JsonValue
from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError, FailureError
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._operator_credentials import OperatorCredential, bound_token
from sagas.engine import (
    ACTION_ABANDONED_SIGNAL,
    ACTION_TAKEN_SIGNAL,
    APPROVE_EXCESS_UPDATE,
    APPROVE_FUNDING_UPDATE,
    APPROVE_RESOLUTION_UPDATE,
    BREAK_RESOLUTION_WORKFLOW,
    FUNDING_VIEW_QUERY,
    FUNDING_WORKFLOW,
    OPERATOR_ACTION_WORKFLOW,
    OPERATOR_VERIFIED_UPDATE,
    RESOLUTION_VIEW_QUERY,
    AccountLimitCall,
    Adjustment,
    AuditKind,
    BreakResolutionRequest,
    FundingApproval,
    FundingRequest,
    FundingView,
    OperatorAct,
    OperatorActionRequest,
    OperatorBinding,
    ResolutionApproval,
    ResolutionView,
    account_status_call,
    funding_id,
    funding_proposal,
    resolution_id,
    resolution_proposal,
)
from sagas.foundations import (
    FundsagaError,
    InvalidRequestError,
    Money,
    SagaNotFoundError,
    error_class_by_name,
)


class OperatorActions:
    """Verified operator actions outside a saga, on this client's task queue."""

    def __init__(
        self, temporal: Client, task_queue: str, operator: OperatorCredential | None
    ) -> None:
        self.temporal = temporal
        self.task_queue = task_queue
        self.operator = operator

    def _proof(self, workflow_id: str, act: str, proposal: str = "") -> str:
        """A token for `act` on the workflow `workflow_id` (and, approving, `proposal`)."""
        binding = OperatorBinding(workflow_id=workflow_id, action=act, proposal=proposal)
        return bound_token(self.operator, binding)

    async def set_account_status(
        self, kind: AuditKind, account_id: str, note: str = ""
    ) -> dict[str, JsonValue]:
        """Freeze (ACCOUNT_FROZEN), unfreeze or close the account once the operator is
        verified; returns the account's facts as recorded."""
        action_id = _action_id("account", account_id)
        request = OperatorActionRequest(
            kind=kind,
            subject_type="account",
            subject_id=account_id,
            note=note,
            proof=self._proof(action_id, kind.value),
            account_status=account_status_call(kind, account_id),
        )
        handle = await self._start_action(action_id, request)
        result: dict[str, JsonValue] = await _result(handle)
        return result

    async def open_account_with_limit(
        self, account_id: str, overdraft: Money, note: str = ""
    ) -> dict[str, JsonValue]:
        """Open the account in the overdraft's currency with that limit, once the operator is
        verified; returns the account's facts as recorded."""
        limit = AccountLimitCall(
            account_id=account_id,
            currency=overdraft.currency.code,
            overdraft=overdraft.amount_text(),
        )
        action_id = _action_id("account", account_id)
        request = OperatorActionRequest(
            kind=AuditKind.ACCOUNT_LIMIT_SET,
            subject_type="account",
            subject_id=account_id,
            note=note,
            proof=self._proof(action_id, AuditKind.ACCOUNT_LIMIT_SET.value),
            account_limit=limit,
        )
        handle = await self._start_action(action_id, request)
        result: dict[str, JsonValue] = await _result(handle)
        return result

    @asynccontextmanager
    async def taken(
        self, kind: AuditKind, subject_type: str, subject_id: str, note: str = ""
    ) -> AsyncIterator[dict[str, JsonValue]]:
        """Verify the operator, let the caller act, then record the action with the details
        the caller put in the yielded dict. Nothing is recorded if the caller's action fails."""
        action_id = _action_id(subject_type, subject_id)
        request = OperatorActionRequest(
            kind=kind,
            subject_type=subject_type,
            subject_id=subject_id,
            note=note,
            proof=self._proof(action_id, kind.value),
        )
        handle = await self._start_action(action_id, request)
        details: dict[str, JsonValue] = {}
        try:
            yield details
        except BaseException:
            await handle.signal(ACTION_ABANDONED_SIGNAL)
            raise
        await handle.signal(ACTION_TAKEN_SIGNAL, details)
        await _result(handle)

    async def propose_funding(
        self, account_id: str, amount: Money, note: str, funding_key: str | None = None
    ) -> str:
        """Propose to bring `amount` into the account from @funding; returns the funding's id,
        which another operator's `approve_funding` names. Nothing is posted until then."""
        key = funding_key or f"{account_id}-{uuid.uuid4().hex[:12]}"
        request = FundingRequest(
            funding_key=key,
            account_id=account_id,
            amount=amount.amount_text(),
            currency=amount.currency.code,
            note=note,
            proof=self._proof(funding_id(key), OperatorAct.PROPOSE),
        )
        handle = await self.temporal.start_workflow(
            FUNDING_WORKFLOW,
            request,
            id=funding_id(key),
            task_queue=self.task_queue,
            static_summary=f"funding {amount.amount_text()} {amount.currency.code} {account_id}",
        )
        await _verified(handle)
        return handle.id

    async def approve_funding(self, funding: str, note: str = "") -> FundingView:
        """Approve another operator's funding proposal; returns it once the entry is posted."""
        proposal = funding_proposal(await self.funding(funding))
        proof = self._proof(funding, OperatorAct.APPROVE, proposal)
        approval = FundingApproval(note=note, proof=proof)
        handle = self.temporal.get_workflow_handle(funding)
        missing = f"no funding {funding!r} awaiting approval"
        view: FundingView = await _approved(handle, APPROVE_FUNDING_UPDATE, approval, missing)
        return view

    async def funding(self, funding: str) -> FundingView:
        """The funding proposal as it stands."""
        handle = self.temporal.get_workflow_handle(funding)
        view: FundingView = await _queried(handle, FUNDING_VIEW_QUERY, f"no funding {funding!r}")
        return view

    async def propose_resolution(
        self, break_id: int, note: str, adjustment: Adjustment | None = None
    ) -> ResolutionView:
        """Propose to resolve a reconciliation break, with an adjusting entry if the ledger must
        change; another operator's `approve_resolution` applies it."""
        proof = self._proof(resolution_id(break_id), OperatorAct.PROPOSE)
        request = BreakResolutionRequest(
            break_id=break_id, note=note, adjustment=adjustment, proof=proof
        )
        handle = await self.temporal.start_workflow(
            BREAK_RESOLUTION_WORKFLOW,
            request,
            id=resolution_id(break_id),
            task_queue=self.task_queue,
            static_summary=f"resolve break {break_id}",
        )
        await _verified(handle)
        return await self.resolution(break_id)

    async def approve_resolution(self, break_id: int, note: str = "") -> ResolutionView:
        """Approve another operator's proposal; returns it once the break is resolved."""
        proposal = resolution_proposal(await self.resolution(break_id))
        proof = self._proof(resolution_id(break_id), OperatorAct.APPROVE, proposal)
        approval = ResolutionApproval(note=note, proof=proof)
        handle = self.temporal.get_workflow_handle(resolution_id(break_id))
        missing = f"no resolution of break {break_id} proposed"
        view: ResolutionView = await _approved(handle, APPROVE_RESOLUTION_UPDATE, approval, missing)
        return view

    async def approve_excess(self, break_id: int, note: str = "") -> ResolutionView:
        """Approve, as an operator with the treasury role, a proposed adjustment beyond its
        break's difference; the resolution still waits for its approver."""
        proposal = resolution_proposal(await self.resolution(break_id))
        proof = self._proof(resolution_id(break_id), OperatorAct.APPROVE_EXCESS, proposal)
        approval = ResolutionApproval(note=note, proof=proof)
        handle = self.temporal.get_workflow_handle(resolution_id(break_id))
        missing = f"no resolution of break {break_id} proposed"
        view: ResolutionView = await _approved(handle, APPROVE_EXCESS_UPDATE, approval, missing)
        return view

    async def resolution(self, break_id: int) -> ResolutionView:
        handle = self.temporal.get_workflow_handle(resolution_id(break_id))
        missing = f"no resolution of break {break_id} proposed"
        view: ResolutionView = await _queried(handle, RESOLUTION_VIEW_QUERY, missing)
        return view

    async def _start_action(
        self, action_id: str, request: OperatorActionRequest
    ) -> WorkflowHandle[Any, Any]:
        handle = await self.temporal.start_workflow(
            OPERATOR_ACTION_WORKFLOW,
            request,
            id=action_id,
            task_queue=self.task_queue,
            static_summary=f"{request.kind} {request.subject_id}",
        )
        await _verified(handle)
        return handle


def _action_id(subject_type: str, subject_id: str) -> str:
    """The workflow id of a fresh action on the subject: its token is bound to it."""
    return f"{subject_type}-action-{subject_id}-{uuid.uuid4().hex[:12]}"


async def _approved(
    handle: WorkflowHandle[Any, Any], update: str, approval: BaseModel, missing: str
) -> Any:
    """The proposal's view once the approval `update` carried it out."""
    try:
        return await handle.execute_update(update, approval, result_type=_VIEWS[update])
    except WorkflowUpdateFailedError as err:
        raise _refusal(err.cause) from err
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise SagaNotFoundError(missing) from err
        raise


async def _queried(handle: WorkflowHandle[Any, Any], query: str, missing: str) -> Any:
    try:
        return await handle.query(query, result_type=_VIEWS[query])
    except RPCError as err:
        if err.status is RPCStatusCode.NOT_FOUND:
            raise SagaNotFoundError(missing) from err
        raise


_VIEWS: dict[str, type[BaseModel]] = {
    APPROVE_FUNDING_UPDATE: FundingView,
    FUNDING_VIEW_QUERY: FundingView,
    APPROVE_RESOLUTION_UPDATE: ResolutionView,
    APPROVE_EXCESS_UPDATE: ResolutionView,
    RESOLUTION_VIEW_QUERY: ResolutionView,
}
"""The view each approval update and query returns."""


async def _verified(handle: WorkflowHandle[Any, Any]) -> str:
    """The operator's name once the worker verified their proof; OperatorRefusedError if not."""
    try:
        name: str = await handle.execute_update(OPERATOR_VERIFIED_UPDATE, result_type=str)
    except WorkflowUpdateFailedError as err:
        raise _refusal(err.cause) from err
    return name


async def _result(handle: WorkflowHandle[Any, Any]) -> Any:
    try:
        return await handle.result()
    except WorkflowFailureError as err:
        raise _refusal(err.cause) from err


def _refusal(cause: BaseException | None) -> FundsagaError:
    """The FundsagaError a workflow's or an update's failure stands for."""
    while isinstance(cause, FailureError) and not isinstance(cause, ApplicationError):
        cause = cause.cause
    if not isinstance(cause, ApplicationError):
        return FundsagaError(str(cause))
    error = error_class_by_name(cause.type or "")
    if error is InvalidRequestError:
        field, _, problem = cause.message.partition(": ")
        return InvalidRequestError(field, problem)
    if error is None:
        return FundsagaError(f"{cause.type}: {cause.message}")
    return error(cause.message)
