"""Operator actions on many parked sagas at once: select them by a filter (a dry run stops
there), then retry, propose or approve each through the saga's own update, so that each saga
verifies the operator and audits the action exactly as a single action. A saga that refuses
does not stop the others."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError

from sagas.client._operator_credentials import OperatorCredential, required_operator
from sagas.client._parked_selection import ParkedFilter, ParkedSaga, parked_sagas
from sagas.client._saga_handle import SagaHandle
from sagas.engine import SagaStatus
from sagas.foundations import FundsagaError, ProposalStaleError, SagaNotFoundError
from sagas.registry import SagaRegistry

DEFAULT_CONCURRENCY = 8
"""Sagas acted on at once: each action is an update that waits on the worker's verification."""


class ActionResult(StrEnum):
    """How one saga took a bulk action."""

    DONE = "done"  # the saga verified the operator, acted and audited it
    REFUSED = "refused"  # the saga (or the client, for want of a proposal) refused; nothing changed


@dataclass(frozen=True)
class SagaActionResult:
    """One saga's answer to a bulk action."""

    saga: ParkedSaga
    result: ActionResult
    detail: str
    """The saga's status after the action, the proposal's id, or why it was refused."""


class BulkActions:
    """Parked sagas on one task queue, selected by a filter and acted on one update each."""

    def __init__(
        self,
        temporal: Client,
        task_queue: str,
        registry: SagaRegistry,
        operator: OperatorCredential | None,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        self.temporal = temporal
        self.task_queue = task_queue
        self.registry = registry
        self.operator = operator
        self._slots = asyncio.Semaphore(concurrency)

    async def select(self, selection: ParkedFilter) -> list[ParkedSaga]:
        """The parked sagas the filter matches, newest first; InvalidRequestError naming the
        filter's field when a value can match nothing. Acts on none of them."""
        selection.check(self.registry)
        listed = await parked_sagas(self.temporal, self.task_queue, selection)
        found = await asyncio.gather(*(self._parked(*row) for row in listed))
        return [saga for saga in found if saga is not None and selection.matches(saga)]

    async def retry(self, sagas: Sequence[ParkedSaga], note: str = "") -> list[SagaActionResult]:
        """Run each saga's parked compensation (or step) again; one operator is enough."""

        async def retry_one(handle: SagaHandle, _: ParkedSaga) -> str:
            return await handle.retry(note)

        return await self._each(sagas, retry_one)

    async def propose(self, sagas: Sequence[ParkedSaga], note: str) -> list[SagaActionResult]:
        """Propose for each saga that what it is parked on was done by hand; the detail of each
        is the proposal id another operator's approval names."""

        async def propose_one(handle: SagaHandle, _: ParkedSaga) -> str:
            return await handle.propose(note)

        return await self._each(sagas, propose_one)

    async def approve(self, sagas: Sequence[ParkedSaga], note: str = "") -> list[SagaActionResult]:
        """Approve each saga's open proposal, made by another operator; a saga without one, or
        whose proposal went stale, is refused."""

        async def approve_one(handle: SagaHandle, saga: ParkedSaga) -> str:
            if saga.proposal_id is None:
                raise ProposalStaleError(f"saga {saga.saga_id} has no open proposal")
            return await handle.approve(saga.proposal_id, note)

        return await self._each(sagas, approve_one)

    @property
    def acting_as(self) -> str:
        return required_operator(self.operator).name

    async def _parked(
        self, saga_id: str, saga_type: str, since: datetime | None
    ) -> ParkedSaga | None:
        handle = self._handle(saga_id, saga_type)
        async with self._slots:
            try:
                view = await handle.view()
            except SagaNotFoundError:
                return None  # gone since Temporal listed it
        if view.status is not SagaStatus.NEEDS_ATTENTION:
            return None
        return ParkedSaga.of(view, since)

    async def _each(
        self,
        sagas: Sequence[ParkedSaga],
        act: Callable[[SagaHandle, ParkedSaga], Awaitable[str]],
    ) -> list[SagaActionResult]:
        required_operator(self.operator)

        async def one(saga: ParkedSaga) -> SagaActionResult:
            async with self._slots:
                try:
                    detail = await act(self._handle(saga.saga_id, saga.saga_type), saga)
                except (FundsagaError, RPCError, WorkflowUpdateFailedError) as err:
                    return SagaActionResult(saga, ActionResult.REFUSED, _reason(err))
            return SagaActionResult(saga, ActionResult.DONE, str(detail))

        return list(await asyncio.gather(*(one(saga) for saga in sagas)))

    def _handle(self, saga_id: str, saga_type: str) -> SagaHandle:
        key = saga_id.removeprefix(f"{saga_type}-")
        return SagaHandle(self.temporal, saga_type, key, self.operator)


def _reason(err: Exception) -> str:
    if isinstance(err, RPCError):
        return f"Temporal refused the call ({err.status.name}): {err.message}"
    if isinstance(err, WorkflowUpdateFailedError):
        return f"{type(err.cause).__name__}: {err.cause}"
    return f"{type(err).__name__}: {err}"
