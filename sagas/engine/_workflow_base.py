"""The workflow side every saga type shares: input decoding, the view query, operator updates."""

from __future__ import annotations

import json
from typing import Any, ClassVar, TypeVar

from pydantic import JsonValue
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from sagas.engine._definition import SagaDefinition
from sagas.engine._events import EVENT_SIGNAL, EventInbox, SagaEvent
from sagas.engine._operator_binding import OperatorAct, OperatorBinding
from sagas.engine._operator_identity import (
    OperatorRole,
    VerifiedOperator,
    operator_refused,
    verified_operator,
)
from sagas.engine._operator_proofs import NO_PROOF, token_digest, validated_operator
from sagas.engine._outcome import (
    FailureReason,
    OperatorAction,
    OperatorDecision,
    SagaOutcome,
    SagaView,
    StepFailure,
)
from sagas.engine._runtime import SagaRuntime
from sagas.engine._status import SagaStatus
from sagas.foundations import InvalidRequestError, NotParkedError, invalid_request_from

T = TypeVar("T")
VIEW_QUERY = "saga_state"  # the wire name predates `view`; kept for `temporal workflow query`
RETRY_UPDATE = "retry_compensation"
PROPOSE_UPDATE = "propose_resolution"
APPROVE_UPDATE = "approve_resolution"


def _payload_of(value: Any) -> Any:
    """The raw payload of a run argument, whichever way the SDK handed it over."""
    if isinstance(value, RawValue):
        return value.payload
    return workflow.payload_converter().to_payloads([value])[0]


def _json_of(value: Any) -> JsonValue:
    """The input as the auditor should see it: its JSON if it is JSON, else its size."""
    data = _payload_of(value).data
    try:
        decoded: JsonValue = json.loads(data)
    except ValueError:
        return {"undecodable_bytes": len(data)}
    return decoded


class InputRefusedError(Exception):
    """A workflow input that is not the saga type's request: the saga ends REJECTED."""

    def __init__(self, invalid: InvalidRequestError, raw_input: JsonValue) -> None:
        super().__init__(str(invalid))
        self.raw_input = raw_input
        self.failure = StepFailure(
            step_name=None,
            reason=FailureReason.INVALID_INPUT,
            error_type=InvalidRequestError.__name__,
            message=str(invalid),
            field=invalid.field,
        )


def decoded_request(
    definition: SagaDefinition[Any, Any], inputs: tuple[RawValue, ...], *, most: int = 1
) -> Any:
    """The first input as the definition's request, of 1 to `most` inputs; InputRefusedError
    if not."""
    if not 1 <= len(inputs) <= most:
        expected = "one input" if most == 1 else f"1 to {most} inputs"
        invalid = InvalidRequestError("request", f"expected {expected}, got {len(inputs)}")
        raise InputRefusedError(invalid, [_json_of(value) for value in inputs])
    try:
        return workflow.payload_converter().from_payload(
            _payload_of(inputs[0]), definition.request_type
        )
    except Exception as err:
        raise InputRefusedError(invalid_request_from(err), _json_of(inputs[0])) from None


def decoded_input(value: RawValue, type_hint: type[T]) -> T:
    """A further input of a workflow (a continued batch's progress)."""
    decoded: T = workflow.payload_converter().from_payload(_payload_of(value), type_hint)
    return decoded


class SagaWorkflow:
    """Base of every saga workflow class; subclasses set `definition` and define `run`."""

    definition: ClassVar[SagaDefinition[Any, Any]]
    _runtime: SagaRuntime[Any, Any] | None = None
    _inbox: EventInbox | None = None
    _spent: set[str] | None = None

    async def run_saga(self, *inputs: RawValue) -> SagaOutcome:
        """Decode the one input and run; a refused input ends the saga REJECTED at once."""
        try:
            request = decoded_request(self.definition, inputs)
        except InputRefusedError as refused:
            self._runtime = SagaRuntime(self.definition, None)
            return await self._runtime.reject(refused.failure, refused.raw_input)
        self._runtime = SagaRuntime(self.definition, request, self._events())
        return await self._runtime.run()

    def _events(self) -> EventInbox:
        if self._inbox is None:
            self._inbox = EventInbox()
        return self._inbox

    @workflow.signal(name=EVENT_SIGNAL)
    def saga_event(self, event: SagaEvent) -> None:
        """An external event (a settlement callback): the first per name counts, a duplicate
        is only counted."""
        self._events().receive(event)

    def _require_runtime(self) -> SagaRuntime[Any, Any]:
        if self._runtime is None:
            raise ApplicationError("the saga has not started", type="SagaNotStarted")
        return self._runtime

    @workflow.query(name=VIEW_QUERY)
    def view(self) -> SagaView:
        """The saga's status, snapshots (one per step taken) and compensation stack."""
        return self._require_runtime().view()

    @workflow.update(name=RETRY_UPDATE)
    async def retry(self, action: OperatorAction) -> SagaStatus:
        """Retry the compensation the saga is parked on; returns the status after the attempt."""
        verified = await self._verified(action, OperatorRole.OPERATOR, OperatorAct.RETRY)
        return await self._apply(OperatorDecision.RETRY, verified)

    @retry.validator
    def _validate_retry(self, action: OperatorAction) -> None:
        self._validate_action(action, OperatorRole.OPERATOR, OperatorAct.RETRY)

    @workflow.update(name=PROPOSE_UPDATE)
    async def propose(self, action: OperatorAction) -> str:
        """Propose that the parked compensation (or step) was done by hand; returns the
        proposal's id, which another operator's approval names."""
        verified = await self._verified(action, OperatorRole.OPERATOR, OperatorAct.PROPOSE)
        return await self._require_runtime().propose(verified)

    @propose.validator
    def _validate_propose(self, action: OperatorAction) -> None:
        self._validate_action(action, OperatorRole.OPERATOR, OperatorAct.PROPOSE)

    @workflow.update(name=APPROVE_UPDATE)
    async def approve(self, action: OperatorAction) -> SagaStatus:
        """Approve the open proposal: the saga records the resolution and continues."""
        verified = await self._verified(action, OperatorRole.APPROVER, OperatorAct.APPROVE)
        self._refuse_approval(verified)
        return await self._apply(OperatorDecision.APPROVE, verified)

    @approve.validator
    def _validate_approve(self, action: OperatorAction) -> None:
        checker = self._validate_action(action, OperatorRole.APPROVER, OperatorAct.APPROVE)
        self._refuse_approval(action.verified_as(checker))

    def _validate_action(
        self, action: OperatorAction, role: OperatorRole, act: OperatorAct
    ) -> VerifiedOperator:
        """Before the update is accepted: the saga waits for an operator, and the action
        carries a valid token bound to it, unspent (the saga alone fills in who it is by)."""
        self._require_parked()
        if not action.proof:
            raise operator_refused(NO_PROOF)
        if action.identity is not None:
            raise operator_refused("identity: filled in by the saga once it verified the proof")
        return validated_operator(
            action.proof, role, self._binding(act, action), self._spent_tokens()
        )

    async def _verified(
        self, action: OperatorAction, role: OperatorRole, act: OperatorAct
    ) -> OperatorAction:
        """The action as the saga records it. Only a history from before operator proofs holds
        an accepted action without one (the validator refuses those now); it replays as it
        ran."""
        if not action.proof:
            return action
        self._spent_tokens().add(token_digest(action.proof))
        identity = await verified_operator(action.proof, role, self._binding(act, action))
        self._require_parked()  # another operator's decision may have landed meanwhile
        return action.verified_as(identity)

    def _binding(self, act: OperatorAct, action: OperatorAction) -> OperatorBinding:
        proposal = (action.proposal_id or "") if act is OperatorAct.APPROVE else ""
        return OperatorBinding(
            workflow_id=workflow.info().workflow_id, action=act, proposal=proposal
        )

    def _spent_tokens(self) -> set[str]:
        """The tokens this workflow took an action with (their digests)."""
        if self._spent is None:
            self._spent = set()
        return self._spent

    def _refuse_approval(self, action: OperatorAction, *, by_operator: bool = True) -> None:
        refusal = self._require_runtime().approval_refusal(action, by_operator=by_operator)
        if refusal is not None:
            raise ApplicationError(str(refusal), type=type(refusal).__name__, non_retryable=True)

    def _require_parked(self) -> None:
        runtime = self._require_runtime()
        if not runtime.parked:
            raise ApplicationError(
                f"saga {runtime.saga_id} is {runtime.status.value}, not NEEDS_ATTENTION",
                type=NotParkedError.__name__,
                non_retryable=True,
            )

    async def _apply(self, decision: OperatorDecision, action: OperatorAction) -> SagaStatus:
        runtime = self._require_runtime()
        target = runtime.decide(decision, action)
        await workflow.wait_condition(lambda: runtime.decisions_applied >= target)
        return runtime.status
