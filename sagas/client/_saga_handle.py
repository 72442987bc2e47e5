"""One saga of any type, by id: view, wait, cancel and the operator's actions."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pydantic import JsonValue
from sqlalchemy.exc import SQLAlchemyError
from temporalio.client import (
    Client,
    WorkflowExecutionDescription,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from sagas.client._launch import shown_status
from sagas.client._operator_credentials import (
    OperatorCredential,
    bound_token,
    required_operator,
)
from sagas.client._saga_reading import SagaReading, money_of_run, standing_and_view
from sagas.client._standing import ListedSaga
from sagas.engine import (
    APPROVE_UPDATE,
    EVENT_SIGNAL,
    PROPOSE_UPDATE,
    RETRY_UPDATE,
    OperatorAct,
    OperatorAction,
    OperatorBinding,
    SagaDefinition,
    SagaEvent,
    SagaOutcome,
    SagaStatus,
    SagaView,
    completed_or_raise,
    outcome_from,
    recovery_id,
    saga_id,
)
from sagas.foundations import (
    FundsagaError,
    NotParkedError,
    OperatorRefusedError,
    ProposalStaleError,
    SagaNotFoundError,
    SameOperatorError,
)
from sagas.ledger import Ledger

log = logging.getLogger("fundsaga.client")

PARK_CHECK = timedelta(seconds=1)
"""How often a wait that ends on a park asks how the saga stands."""

_REFUSALS: dict[str, type[FundsagaError]] = {
    error.__name__: error
    for error in (NotParkedError, OperatorRefusedError, ProposalStaleError, SameOperatorError)
}


@dataclass(frozen=True)
class SagaHandle:
    """A saga of any registered type; every call is one or two Temporal RPCs."""

    temporal: Client
    saga_type: str
    idempotency_key: str
    operator: OperatorCredential | None = None
    """Who the operator actions are by, with the proof of it; None: this handle has no operator
    and its operator actions are refused."""
    ledger: Ledger | None = None
    """Where the steps' snapshots are durable: `view()` reads each step's attempts there."""
    definition: SagaDefinition[Any, Any] | None = None
    """The saga type's definition: `read()` finds the money of a request that the memo does
    not hold with it."""

    @property
    def saga_id(self) -> str:
        return saga_id(self.saga_type, self.idempotency_key)

    @property
    def workflow(self) -> WorkflowHandle[Any, SagaOutcome]:
        return self.temporal.get_workflow_handle(self.saga_id, result_type=SagaOutcome)

    async def view(self) -> SagaView:
        """Status, snapshots and compensation stack, from the saga's query; its status and
        wait as `sagas list` decides them (`saga_standing`); with a ledger, each step's attempts
        as its durable snapshot counts them (the workflow sees a step's result, not how many
        attempts it took).

        When the latest run was refused by the launch fence, the view is that of the run that
        took effects, while Temporal still holds its history. Once a killed saga's recovery is
        approved, the view is the recovery's, which runs as the saga.
        """
        view = (await standing_and_view(self.temporal, self.saga_type, self.saga_id))[2]
        return self._with_attempts(view)

    async def read(self) -> SagaReading:
        """What `fundsaga sagas view` shows: the saga as `sagas list` lists it (its standing and
        money) and its view. Its money comes from its memo, or, for a saga started by a client
        that keeps none there, from the request at the start of its history."""
        run, standing, view = await standing_and_view(self.temporal, self.saga_type, self.saga_id)
        money = await money_of_run(self.temporal, run, self.definition)
        listed = ListedSaga(self.saga_id, self.saga_type, standing, money)
        return SagaReading(listed=listed, view=self._with_attempts(view))

    def _with_attempts(self, view: SagaView) -> SagaView:
        if self.ledger is None or not view.snapshots:
            return view
        try:
            recorded = {s.step_index: s.attempt for s in self.ledger.snapshots(view.saga_id)}
        except (FundsagaError, SQLAlchemyError) as fault:  # down, or not this deployment's
            log.warning(
                "attempts shown as the workflow knows them: the ledger did not answer (%s)",
                str(fault).splitlines()[0],
            )
            return view
        snapshots = [
            s.model_copy(update={"attempt": max(s.attempt, recorded.get(s.step_index, 0))})
            for s in view.snapshots
        ]
        return view.model_copy(update={"snapshots": snapshots})

    async def wait(self) -> SagaOutcome:
        """Wait for the saga to close: its outcome if COMPLETED.

        Raises the SagaNotCompletedError subclass of its status (carrying the outcome) for every
        other end, and WorkflowFailureError for an engine fault.
        """
        return completed_or_raise(await self.outcome())

    async def outcome(self) -> SagaOutcome:
        """Wait for the saga to close: its outcome whatever the status, for reports and tools.

        A service that acts on the result uses `wait()`, which only returns for COMPLETED.
        """
        try:
            raw = await self.temporal.get_workflow_handle(self.saga_id).result()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no saga {self.saga_id}") from err
            raise
        return outcome_from(raw)

    async def settled(self, every: timedelta = PARK_CHECK) -> SagaOutcome | SagaStatus:
        """Wait until the saga closes or stops moving by itself: its outcome once it closed,
        else NEEDS_ATTENTION once it parks, or KILLED once Temporal closed it from outside.

        The outcome comes as soon as the saga closes; a park is seen within `every`.
        """
        closed = asyncio.ensure_future(self.outcome())
        try:
            while not (await asyncio.wait({closed}, timeout=every.total_seconds()))[0]:
                status = shown_status(await self.describe())
                if status in (SagaStatus.NEEDS_ATTENTION, SagaStatus.KILLED):
                    return status
            return closed.result()
        except WorkflowFailureError:
            if shown_status(await self.describe()) is SagaStatus.KILLED:
                return SagaStatus.KILLED
            raise
        finally:
            closed.cancel()

    async def cancel(self) -> None:
        """Ask the saga to stop; it compensates what it did. SagaNotFoundError when no saga of
        that id is open."""
        try:
            await self.workflow.cancel()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no open saga {self.saga_id}") from err
            raise

    async def signal_event(self, name: str, payload: dict[str, JsonValue]) -> None:
        """Deliver an external event (a provider's callback); the saga counts the first of each
        name. SagaNotFoundError when no saga of that id is open."""
        try:
            await self.workflow.signal(EVENT_SIGNAL, SagaEvent(name=name, payload=payload))
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no open saga {self.saga_id}") from err
            raise

    async def is_closed(self) -> bool:
        return (await self.describe()).status is not WorkflowExecutionStatus.RUNNING

    async def describe(self) -> WorkflowExecutionDescription:
        """Temporal's description of the saga's workflow; needs no worker, unlike `view()`."""
        try:
            return await self.workflow.describe()
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise SagaNotFoundError(f"no saga {self.saga_id}") from err
            raise

    async def retry(self, note: str = "") -> SagaStatus:
        """Run the parked compensation (or step) again; one operator is enough."""
        action = OperatorAction(note=note)
        status: SagaStatus = await self._operator_update(
            RETRY_UPDATE, OperatorAct.RETRY, action, SagaStatus
        )
        return status

    async def propose(self, note: str) -> str:
        """Propose that what the saga is parked on was done by hand; returns the proposal id
        another operator's `approve` names."""
        action = OperatorAction(note=note)
        proposal_id: str = await self._operator_update(
            PROPOSE_UPDATE, OperatorAct.PROPOSE, action, str
        )
        return proposal_id

    async def approve(self, proposal_id: str, note: str = "") -> SagaStatus:
        """Approve another operator's proposal: the saga records the resolution and goes on.

        Raises SameOperatorError for the proposer's own approval, ProposalStaleError when the
        proposal is not the saga's open one or the saga changed since it was made.
        """
        action = OperatorAction(note=note, proposal_id=proposal_id)
        status: SagaStatus = await self._operator_update(
            APPROVE_UPDATE, OperatorAct.APPROVE, action, SagaStatus
        )
        return status

    @property
    def acting_as(self) -> str:
        """The operator this handle's actions are by, as its credential names it."""
        return self._credential().name

    def _credential(self) -> OperatorCredential:
        return required_operator(self.operator)

    def _signed(self, action: OperatorAction, act: OperatorAct, workflow_id: str) -> OperatorAction:
        """`action` with a token bound to `act` on the workflow `workflow_id`."""
        proposal = (action.proposal_id or "") if act is OperatorAct.APPROVE else ""
        binding = OperatorBinding(workflow_id=workflow_id, action=act, proposal=proposal)
        proof = bound_token(self.operator, binding)
        return action.model_copy(update={"operator": self._credential().name, "proof": proof})

    async def _operator_update(
        self, update: str, act: OperatorAct, action: OperatorAction, result: type
    ) -> Any:
        """The update on the saga, or, once it was killed, on its recovery (which parks as the
        saga would); each with a token bound to it. A token the operator got for the recovery
        goes to the recovery at once."""
        recovery = recovery_id(self.saga_id)
        try:
            signed = self._signed(action, act, self.saga_id)
        except OperatorRefusedError as unbound:
            try:
                signed = self._signed(action, act, recovery)
            except OperatorRefusedError:
                raise unbound from None
            return await self._update_recovery(update, signed, result)
        try:
            return await _update(self.workflow, update, signed, result)
        except RPCError as err:
            if err.status is not RPCStatusCode.NOT_FOUND:
                raise
        return await self._update_recovery(update, self._signed(action, act, recovery), result)

    async def _update_recovery(self, update: str, action: OperatorAction, result: type) -> Any:
        recovery = self.temporal.get_workflow_handle(recovery_id(self.saga_id))
        try:
            return await _update(recovery, update, action, result)
        except RPCError as err:
            if err.status is RPCStatusCode.NOT_FOUND:
                raise NotParkedError(f"saga {self.saga_id} is closed or unknown") from err
            raise


async def _update(
    handle: WorkflowHandle[Any, Any], update: str, action: OperatorAction, result: type
) -> Any:
    try:
        return await handle.execute_update(update, action, result_type=result)
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type in _REFUSALS:
            raise _REFUSALS[cause.type](cause.message) from err
        raise
