"""The engine loop: runs any SagaDefinition inside a Temporal workflow, one step activity at a time.

Deterministic orchestration only: time comes from workflow.now(), every effect is an activity.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Generic

from pydantic import JsonValue
from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ActivityError, ApplicationError, RetryState, TimeoutError

from sagas.engine._audit_call import AuditKind
from sagas.engine._audit_trail import audit_completed_sagas, outcome_payload, write_audit_record
from sagas.engine._current_details import amount_text, current_details
from sagas.engine._definition import (
    RequestT,
    SagaDefinition,
    StateT,
    StepDefinition,
)
from sagas.engine._events import EventInbox, EventRecord, EventWait
from sagas.engine._infrastructure_wait import InfrastructureWaits
from sagas.engine._inquiry import Inquiry, InquiryAnswer, InquiryRecord
from sagas.engine._metrics import (
    compensation_ended,
    saga_compensated,
    saga_finished,
    saga_started,
)
from sagas.engine._outcome import (
    REFUSED_FIELD,
    CompensationOutcome,
    CompensationResult,
    FailureReason,
    OperatorAction,
    OperatorDecision,
    SagaOutcome,
    SagaView,
    StepFailure,
)
from sagas.engine._recovery import stack_to_undo
from sagas.engine._resolution import ParkedAt, Proposals
from sagas.engine._retry import RETRIES_EXHAUSTED, RetrySpec
from sagas.engine._retry_specs import (
    RETRY_SPECS_ACTIVITY,
    RETRY_SPECS_RETRY,
    RETRY_SPECS_TIMEOUT,
    RetrySpecsCall,
    code_specs,
    runs_on_code_specs,
)
from sagas.engine._saga_retry_specs import SagaRetrySpecs
from sagas.engine._search_attributes import SAGA_STATUS, SAGA_STATUS_SINCE, SAGA_TYPE
from sagas.engine._snapshot import CompensationEntry, RunClaim, Snapshot
from sagas.engine._status import Phase, SagaStatus
from sagas.engine._workflow_util import uncancellable
from sagas.foundations import (
    ResolutionRefusedError,
    RetryClass,
    SagaIdReusedError,
    is_business_error_type,
)

CLOSING_RECORD = "terminal"
"""Dedupe suffix of the one record a saga writes as it closes, whatever its kind."""


class _ForwardStoppedError(Exception):
    def __init__(self, failure: StepFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class SagaRuntime(Generic[RequestT, StateT]):
    """State and loop of one saga run; the workflow class delegates to it."""

    def __init__(
        self,
        definition: SagaDefinition[RequestT, StateT],
        request: RequestT | None,
        inbox: EventInbox | None = None,
        *,
        killed: RunClaim | None = None,
    ) -> None:
        """`request` is None for a saga whose input was refused: it can only `reject()`.

        `inbox` holds the external events the workflow received (perhaps before the run).
        `killed` is the claim of a saga whose execution was closed from outside: this runtime
        then acts as that saga, with its run chain, to `recover()` it."""
        self.definition = definition
        self.request = request
        self.saga_id = killed.saga_id if killed else workflow.info().workflow_id
        self.run_chain = killed.run_chain if killed else workflow.info().first_execution_run_id
        self._recovering = killed is not None
        self.status = SagaStatus.RUNNING
        self.state: StateT = definition.state_type()
        self.current_step: str | None = None
        self.snapshots: list[Snapshot] = []
        self.stack: list[CompensationEntry] = []
        self.failure: StepFailure | None = None
        self.compensations: list[CompensationOutcome] = []
        self.operator_actions: list[OperatorAction] = []
        self._decision: tuple[OperatorDecision, OperatorAction] | None = None
        self.decisions_applied = 0
        self._parkings = 0
        self.proposals = Proposals()
        self.forward_only = False
        """The pivot step has started: from now on nothing is compensated."""
        self._parked_forward = False
        self._resolved_forward = False
        self.ignored_stops: list[StepFailure] = []
        """Cancels and the deadline that arrived after the pivot: recorded, not acted on."""
        self.inquiries: list[InquiryRecord] = []
        self.inbox = inbox or EventInbox()
        self.events: list[EventRecord] = []
        self.retry_specs: SagaRetrySpecs = code_specs(definition)
        self._amount: str | None = None
        """The request's amount as the current details show it, once worked out."""
        self.infrastructure = InfrastructureWaits(definition.saga_type, self._show_details)

    # ---- public surface used by the workflow's handlers
    def view(self) -> SagaView:
        return SagaView(**self._view_fields(), snapshots=list(self.snapshots))

    def _view_fields(self) -> dict[str, Any]:
        """The view's fields but its snapshots, as copies: the runtime goes on changing its own."""
        return {
            "saga_id": self.saga_id,
            "saga_type": self.definition.saga_type,
            "status": self.status,
            "current_step": self.current_step,
            "compensation_stack": list(self.stack),
            "failure": self.failure,
            "compensations": list(self.compensations),
            "operator_actions": list(self.operator_actions),
            "pivot": self._pivot_name,
            "parked_on_step": self._parked_forward,
            "pivot_passed": self.forward_only,
            "ignored_stops": list(self.ignored_stops),
            "inquiries": list(self.inquiries),
            "events": list(self.events),
            "waiting_on": self.infrastructure.error_type or None,
            "waiting_since": self.infrastructure.since,
        }

    @property
    def _pivot_name(self) -> str | None:
        index = self.definition.pivot_index
        return None if index is None else self.definition.steps[index].name

    @property
    def _request(self) -> RequestT:
        if self.request is None:
            raise RuntimeError(f"saga {self.saga_id} was rejected: it has no request")
        return self.request

    @property
    def parked(self) -> bool:
        return self.status is SagaStatus.NEEDS_ATTENTION and self._decision is None

    def decide(self, decision: OperatorDecision, action: OperatorAction) -> int:
        """Record an operator's decision; returns the count to wait for."""
        self._decision = (decision, action.model_copy(update={"decision": decision}))
        return self.decisions_applied + 1

    def parked_at(self) -> ParkedAt:
        stack = [entry.step_name for entry in reversed(self.stack)]
        on_step = self.failure.step_name if self.failure is not None else None
        return ParkedAt(
            parking=self._parkings,
            parked_on=on_step if self._parked_forward else next(iter(stack), None),
            stack=stack,
        )

    async def propose(self, action: OperatorAction) -> str:
        """Record an operator's proposal to resolve the parked saga; returns its id."""
        proposal = self.proposals.draft(action, self.parked_at())
        proposed = action.model_copy(
            update={"decision": OperatorDecision.PROPOSE, "proposal_id": proposal.proposal_id}
        )
        self.operator_actions.append(proposed)
        payload = self._outcome_payload() | {
            "operator_action": proposed.model_dump(
                mode="json", exclude_none=True, exclude={"proof"}
            ),
            "proposal": proposal.model_dump(mode="json"),
        }
        await self._audit(
            AuditKind.RESOLUTION_PROPOSED, f"proposal:{proposal.proposal_id}", payload
        )
        self.proposals.recorded(proposal)
        self._show_details()
        return proposal.proposal_id

    def approval_refusal(
        self, action: OperatorAction, *, by_operator: bool = True
    ) -> ResolutionRefusedError | None:
        """Why `action` cannot approve; `by_operator=False` leaves out who it is by (not yet
        verified)."""
        return self.proposals.refusal(action, self.parked_at(), by_operator=by_operator)

    async def run(self) -> SagaOutcome:
        """Run the saga to its end; every business end completes the workflow with its outcome."""
        saga_started(self.definition.saga_type)
        self._upsert([SAGA_TYPE.value_set(self.definition.saga_type)])
        self._set_status(SagaStatus.RUNNING)
        try:
            self.retry_specs = await self._resolve_retry_specs()
        except asyncio.CancelledError:
            self.failure = self._stop_failure(FailureReason.CANCELLED, "the saga was cancelled")
        else:
            self.failure = await self._run_forward()
        await self._end()
        if self.status is not SagaStatus.COMPLETED:
            await self._audit(AuditKind.TERMINAL, CLOSING_RECORD, self._outcome_payload())
        elif audit_completed_sagas():
            await self._audit(AuditKind.COMPLETED, CLOSING_RECORD, self._outcome_payload())
        return await self._closed()

    async def _end(self) -> None:
        """Close on how the forward path ended: COMPLETED, RESOLVED, REJECTED, or compensate."""
        if self.failure is None:
            self.current_step = None
            self._set_status(SagaStatus.COMPLETED)
        elif self._resolved_forward:
            self.current_step = None
            self._set_status(SagaStatus.RESOLVED)
        elif self.failure.reason is FailureReason.SAGA_ID_REUSED:
            self._close_rejected()
        else:
            await self._compensate()

    async def recover(
        self, stored: Sequence[Snapshot], closed_as: str, recovery: dict[str, JsonValue]
    ) -> SagaOutcome:
        """Finish a saga whose execution was closed from outside (`closed_as`), from its stored
        snapshots: before its pivot, compensate what it did; from the pivot on, finish it
        forward from the step in flight. Each effect keeps its key, so what already happened is
        not done twice. The closing record carries `recovery` (who approved it). The saga's
        start was counted when it started; its end is counted here."""
        self.snapshots = list(stored)
        if stored and stored[0].retry_specs is not None:
            self.retry_specs = stored[0].retry_specs
        latest = stored[-1] if stored else None
        self._set_status(SagaStatus.RUNNING)
        if latest is not None and latest.forward_only:
            self.failure = await self._finish_forward(latest)
        else:
            self._restore_backwards(latest)
            message = f"the saga's execution was {closed_as.lower()} from outside"
            self.failure = self._stop_failure(FailureReason.KILLED, message)
        await self._end()
        payload = self._outcome_payload() | {"recovery": recovery}
        await self._audit(AuditKind.SAGA_RECOVERED, CLOSING_RECORD, payload)
        return await self._closed()

    def _restore_backwards(self, latest: Snapshot | None) -> None:
        if latest is None:
            return
        self.state = self.definition.state_type.model_validate(latest.data)
        self.inquiries = list(latest.inquiries)
        self.stack = stack_to_undo(self.definition, latest)
        self.current_step = latest.step_name

    async def _finish_forward(self, latest: Snapshot) -> StepFailure | None:
        self.state = self.definition.state_type.model_validate(latest.data)
        self.inquiries = list(latest.inquiries)
        self.forward_only = True
        self.snapshots = [s for s in self.snapshots if s.step_index < latest.step_index]
        try:
            await self._run_steps(start=latest.step_index)
        except _ForwardStoppedError as stopped:
            return stopped.failure
        return None

    async def _resolve_retry_specs(self) -> SagaRetrySpecs:
        """The worker's configured specs, fixed for this saga by the marker in its history."""
        if runs_on_code_specs():
            return self.retry_specs
        call = RetrySpecsCall(saga_type=self.definition.saga_type, defaults=self.retry_specs)
        resolved: SagaRetrySpecs = await workflow.execute_local_activity(
            RETRY_SPECS_ACTIVITY,
            call,
            result_type=SagaRetrySpecs,
            start_to_close_timeout=RETRY_SPECS_TIMEOUT,
            retry_policy=RETRY_SPECS_RETRY,
            summary="retry specs of this saga",
        )
        return resolved

    async def reject(self, failure: StepFailure, raw_input: JsonValue) -> SagaOutcome:
        """End REJECTED before any step: the input was refused. Nothing was written."""
        self.failure = failure
        saga_started(self.definition.saga_type)
        self._upsert([SAGA_TYPE.value_set(self.definition.saga_type)])
        self._close_rejected()
        payload = outcome_payload(self._outcome(), raw_input, [])
        await self._audit(AuditKind.TERMINAL, CLOSING_RECORD, payload)
        return await self._closed()

    def _close_rejected(self) -> None:
        """No step took effect in this run, so nothing is compensated: the stack is dropped."""
        self.stack.clear()
        self.current_step = None
        self._set_status(SagaStatus.REJECTED)

    async def _closed(self) -> SagaOutcome:
        await uncancellable(workflow.wait_condition(workflow.all_handlers_finished))
        saga_finished(self.definition.saga_type, self.status)
        return self._outcome()

    # ---- forward path
    async def _run_forward(self) -> StepFailure | None:
        forward = asyncio.create_task(self._run_steps())
        racing_deadline = self._races_deadline()
        while True:
            try:
                done = await self._wait_forward(forward, racing_deadline)
            except asyncio.CancelledError:
                if self._holds_forward():
                    self._ignore_stop(FailureReason.CANCELLED, "the saga was cancelled")
                    continue
                await self._stop(forward)
                return self._stop_failure(FailureReason.CANCELLED, "the saga was cancelled")
            if done:
                break
            if not self._holds_forward():
                await self._stop(forward)
                return self._deadline_failure()
            self._ignore_stop(FailureReason.DEADLINE, "the saga's deadline passed")
            racing_deadline = False
        try:
            forward.result()
        except _ForwardStoppedError as stopped:
            return stopped.failure
        return None

    def _races_deadline(self) -> bool:
        """Regular activity steps need no deadline timer: each step's schedule-to-close timeout
        is the time left. Local steps need one, and so does a saga with a pivot, which records
        a deadline that passes after its pivot."""
        return self.definition.has_local_steps or self.definition.pivot_index is not None

    async def _wait_forward(self, forward: asyncio.Task[None], racing_deadline: bool) -> bool:
        """Whether the forward path ended (else the deadline timer fired first); the timer is
        left to lapse rather than cancelled."""
        if not racing_deadline:
            await workflow.wait([forward])
            return True
        timer = asyncio.ensure_future(asyncio.sleep(self._time_left().total_seconds()))
        await workflow.wait([forward, timer], return_when=asyncio.FIRST_COMPLETED)
        return forward.done()

    def _holds_forward(self) -> bool:
        """Past the pivot, or parked on a step: a cancel or the deadline compensates nothing."""
        return self.forward_only or self._parked_forward

    def _ignore_stop(self, reason: FailureReason, message: str) -> None:
        why = "past the pivot" if self.forward_only else "parked on a step"
        workflow.logger.warning("%s ignored: saga %s is %s", reason.value, self.saga_id, why)
        self.ignored_stops.append(self._stop_failure(reason, f"{message} ({why}): ignored"))
        self._show_details()

    def _until_deadline(self) -> timedelta:
        deadline = workflow.info().start_time + timedelta(seconds=self._request.deadline_seconds)
        return deadline - workflow.now()

    def _time_left(self) -> timedelta:
        return max(self._until_deadline(), timedelta(milliseconds=1))

    def _deadline_failure(self) -> StepFailure:
        return self._stop_failure(FailureReason.DEADLINE, "the saga's deadline passed")

    async def _stop(self, forward: asyncio.Task[None]) -> None:
        forward.cancel()
        with contextlib.suppress(
            asyncio.CancelledError, ActivityError, StepActivityError, _ForwardStoppedError
        ):
            await forward
        self.infrastructure.over()  # a cancel or the deadline ended the step's wait

    def _stop_failure(self, reason: FailureReason, message: str) -> StepFailure:
        return StepFailure(
            step_name=self.current_step, reason=reason, error_type=reason.value, message=message
        )

    async def _run_steps(self, start: int = 0) -> None:
        for index, step in enumerate(self.definition.steps):
            if index < start:
                continue
            self.current_step = step.name
            if self.definition.forward_only(index) and not self.forward_only:
                self._pass_pivot()
            snapshot = self._snapshot(index, step.name)
            self.snapshots.append(snapshot)
            if step.compensation is not None and not self.forward_only:
                self.stack.append(
                    CompensationEntry(
                        step_index=index, step_name=step.name, compensation=step.compensation
                    )
                )
            self._show_details()
            await self._run_step(index, step, snapshot)

    def _pass_pivot(self) -> None:
        """The point of no return: the steps taken stay taken, whatever happens next."""
        self.forward_only = True
        self.stack.clear()

    async def _run_step(
        self, index: int, step: StepDefinition[RequestT], snapshot: Snapshot
    ) -> None:
        """Run the step's action until it succeeds; an infrastructure fault is waited out. Any
        other failure before the pivot stops the forward path (the saga compensates); one from
        the pivot on, or one its inquiry cannot tell executed or not, parks it for an operator."""
        retry = self._retry(step, Phase.ACTION)
        event = await self._await_event(step)
        retrying = False
        while True:
            deadline_in = None if self.forward_only else self._until_deadline()
            if deadline_in is not None and deadline_in <= timedelta(0):
                self.infrastructure.over()
                raise _ForwardStoppedError(self._deadline_failure())
            try:
                self.state = await run_step_activity(
                    step,
                    step.action,
                    self._call(
                        index,
                        step.name,
                        Phase.ACTION,
                        snapshot,
                        retry,
                        event,
                        earlier_attempts=self.infrastructure.earlier_attempts,
                    ),
                    retry=retry,
                    summary=step.describe_action(self._request),
                    result_type=self.definition.state_type,
                    deadline_in=deadline_in,
                    wait_for_cancel=True,
                )
                failed = None
            except StepActivityError as error:
                failed = error
            waits = failed is not None and self._waits_on_infrastructure(failed)
            answer = (
                None
                if failed is None or waits
                else await self._inquire_after(index, step, failed, event)
            )
            if retrying:  # the operator's retry update returns once this attempt has ended
                retrying = False
                self.decisions_applied += 1
            if (
                failed is not None
                and waits
                and await self.infrastructure.wait_out(
                    failed, Phase.ACTION, retry.infrastructure_wait, deadline_in
                )
            ):
                continue
            self.infrastructure.over()
            if failed is None or answer is InquiryAnswer.EXECUTED:
                return
            failure = self._step_failure(step.name, failed)
            must_park = self.forward_only or answer is InquiryAnswer.UNKNOWN
            if failure.reason is FailureReason.SAGA_ID_REUSED or not must_park:
                raise _ForwardStoppedError(failure)
            await self._park_on_step(failure)
            retrying = True

    async def _inquire_after(
        self,
        index: int,
        step: StepDefinition[RequestT],
        failed: StepActivityError,
        event: dict[str, JsonValue] | None,
    ) -> InquiryAnswer | None:
        """Ask the step's inquiry when its attempts ended in timeouts or transient errors."""
        if step.inquiry is None or failed.business or failed.deadline:
            return None
        retry = step.inquiry_retry or step.action_retry
        for asked in range(1, retry.maximum_attempts + 1):
            found: Inquiry = await run_step_activity(
                step,
                step.inquiry,
                self._call(index, step.name, Phase.ACTION, None, retry, event),
                retry=retry,
                summary=f"ask whether {step.name} executed",
                result_type=Inquiry,
            )
            if found.answer is InquiryAnswer.EXECUTED:
                self.state = self.definition.state_type.model_validate(found.state or {})
            if found.answer is not InquiryAnswer.UNKNOWN or asked == retry.maximum_attempts:
                self.inquiries.append(
                    InquiryRecord(
                        step_name=step.name, answer=found.answer, asked=asked, at=workflow.now()
                    )
                )
                return found.answer
            await workflow.sleep(retry.delay_before_retry(asked))
        return InquiryAnswer.UNKNOWN

    async def _await_event(self, step: StepDefinition[RequestT]) -> dict[str, JsonValue] | None:
        """Wait for the step's event, at most its await timeout; None when it did not come."""
        name = step.awaits
        if name is None:
            return None
        # A recovery waits for nothing: the event went to the killed execution's id.
        if name not in self.inbox.first and not self._recovering:
            with contextlib.suppress(asyncio.TimeoutError):
                await workflow.wait_condition(
                    lambda: name in self.inbox.first, timeout=step.event_wait(self._request)
                )
        event = self.inbox.first.get(name)
        self.events.append(
            EventRecord(
                step_name=step.name,
                event=name,
                result=EventWait.TIMED_OUT if event is None else EventWait.RECEIVED,
                at=workflow.now(),
                duplicates=self.inbox.duplicates.get(name, 0),
            )
        )
        self._show_details()
        return None if event is None else dict(event.payload)

    async def _park_on_step(self, failure: StepFailure) -> None:
        """Wait for an operator: a retry runs the step again, an approved resolution ends the saga
        RESOLVED (operators finished it by hand)."""
        self.failure = failure
        self._parked_forward = True
        try:
            decision = await self._park(resume_as=SagaStatus.RUNNING)
        finally:
            self._parked_forward = False
        if decision is OperatorDecision.APPROVE:
            self._resolved_forward = True
            self.decisions_applied += 1
            raise _ForwardStoppedError(failure)
        self.failure = None

    def _waits_on_infrastructure(self, failed: StepActivityError) -> bool:
        """A fault of the infrastructure is waited out, never parked on."""
        return (
            failed.retry_class is RetryClass.INFRASTRUCTURE
            and not failed.deadline
            and failed.error_type != SagaIdReusedError.__name__
            and self.infrastructure.enabled()
        )

    def _retry(self, step: StepDefinition[RequestT], phase: Phase) -> RetrySpec:
        specs = self.retry_specs.steps.get(step.name)
        if specs is None:  # a step the definition gained after this saga started
            return step.action_retry if phase is Phase.ACTION else step.compensation_retry
        return specs.of(phase)

    def _step_failure(self, step_name: str, failed: StepActivityError) -> StepFailure:
        if failed.deadline:
            return self._deadline_failure()
        if failed.error_type == SagaIdReusedError.__name__:
            return _id_reused(failed)
        return StepFailure(
            step_name=step_name,
            reason=FailureReason.BUSINESS_ERROR
            if failed.business
            else FailureReason.RETRIES_EXHAUSTED,
            error_type=failed.error_type,
            message=failed.message,
            attempts=failed.attempts,
            field=failed.field,
        )

    def _snapshot(self, index: int, step_name: str) -> Snapshot:
        return Snapshot(
            saga_id=self.saga_id,
            saga_type=self.definition.saga_type,
            step_index=index,
            step_name=step_name,
            status=self.status,
            data=self.state.model_dump(mode="json"),
            compensation_stack=list(self.stack),
            attempt=1,
            recorded_at=workflow.now(),
            forward_only=self.forward_only,
            inquiries=list(self.inquiries),
            retry_specs=self.retry_specs if index == 0 else None,
        )

    def _call(
        self,
        index: int,
        step_name: str,
        phase: Phase,
        snapshot: Snapshot | None,
        retry: RetrySpec,
        event: dict[str, JsonValue] | None = None,
        earlier_attempts: int = 0,
    ) -> Any:
        return self.definition.call_type(
            saga_id=self.saga_id,
            saga_type=self.definition.saga_type,
            step_index=index,
            step_name=step_name,
            phase=phase,
            run_chain=self.run_chain,
            request=self._request,
            state=self.state,
            snapshot=snapshot,
            retry=retry,
            event=event,
            earlier_attempts=earlier_attempts,
            scheduled_at=workflow.now(),
        )

    # ---- compensation path
    async def _compensate(self) -> None:
        failed_at = workflow.now()
        self._set_status(SagaStatus.COMPENSATING)
        resolved = False
        retrying = False
        while self.stack:
            entry = self.stack[-1]
            failed = await self._try_compensation(entry)
            if retrying:
                retrying = False
                self.decisions_applied += 1
            if failed is not None and self._waits_on_infrastructure(failed):
                retry = self._retry(self.definition.steps[entry.step_index], Phase.COMPENSATION)
                if await self.infrastructure.wait_out(
                    failed, Phase.COMPENSATION, retry.infrastructure_wait, None
                ):
                    continue
            self.infrastructure.over()
            if failed is None:
                self._record_compensation(entry, CompensationResult.COMPENSATED)
                self.stack.pop()
                continue
            if failed.error_type == SagaIdReusedError.__name__:
                # The claim was never this chain's: it took no effect, and must not undo another's.
                self.failure = _id_reused(failed)
                self._close_rejected()
                return
            self._record_compensation(
                entry, CompensationResult.FAILED, failed.message, failed.error_type
            )
            if await self._park() is OperatorDecision.APPROVE:
                resolved = True
                self._record_compensation(entry, CompensationResult.RESOLVED)
                self.stack.pop()
                self.decisions_applied += 1
            else:
                retrying = True
        self.current_step = None
        self._set_status(SagaStatus.RESOLVED if resolved else SagaStatus.COMPENSATED)
        if not resolved:
            saga_compensated(self.definition.saga_type, workflow.now() - failed_at)

    async def _try_compensation(self, entry: CompensationEntry) -> StepActivityError | None:
        step = self.definition.steps[entry.step_index]
        self.current_step = step.name
        self._show_details()
        retry = self._retry(step, Phase.COMPENSATION)
        attempt = asyncio.create_task(
            run_step_activity(
                step,
                entry.compensation,
                self._call(
                    entry.step_index,
                    step.name,
                    Phase.COMPENSATION,
                    None,
                    retry,
                    earlier_attempts=self.infrastructure.earlier_attempts,
                ),
                retry=retry,
                summary=step.describe_compensation(self._request),
            )
        )
        try:
            await uncancellable(attempt)
        except StepActivityError as failed:
            return failed
        return None

    async def _park(self, resume_as: SagaStatus = SagaStatus.COMPENSATING) -> OperatorDecision:
        self._set_status(SagaStatus.NEEDS_ATTENTION)
        self._parkings += 1
        await self._audit(
            AuditKind.NEEDS_ATTENTION, f"needs_attention:{self._parkings}", self._outcome_payload()
        )
        while self._decision is None:
            try:
                await workflow.wait_condition(lambda: self._decision is not None)
            except asyncio.CancelledError:
                workflow.logger.warning(
                    "cancel ignored: saga %s waits for an operator", self.saga_id
                )
        decision, action = self._decision
        self.operator_actions.append(action)
        kind = (
            AuditKind.OPERATOR_RETRY
            if decision is OperatorDecision.RETRY
            else AuditKind.RESOLUTION_APPROVED
        )
        payload = self._outcome_payload() | {
            "operator_action": action.model_dump(mode="json", exclude_none=True, exclude={"proof"})
        }
        await self._audit(kind, f"operator:{len(self.operator_actions)}", payload)
        self._decision = None
        self._set_status(resume_as)
        return decision

    def _record_compensation(
        self,
        entry: CompensationEntry,
        result: CompensationResult,
        message: str = "",
        error_type: str = "",
    ) -> None:
        compensation_ended(self.definition.saga_type, entry.step_name, result.value)
        self.compensations.append(
            CompensationOutcome(
                step_name=entry.step_name,
                compensation=entry.compensation,
                result=result,
                message=message,
                at=workflow.now(),
                error_type=error_type,
            )
        )

    # ---- audit trail
    def _outcome_payload(self) -> dict[str, JsonValue]:
        request_json: JsonValue = self._request.model_dump(mode="json")
        return outcome_payload(self._outcome(), request_json, self.snapshots)

    async def _audit(
        self, kind: AuditKind, dedupe_suffix: str, payload: dict[str, JsonValue]
    ) -> None:
        if self._recovering and dedupe_suffix != CLOSING_RECORD:
            # Its parkings and operator actions count from 1 again: apart from the killed run's.
            dedupe_suffix = f"recovery:{dedupe_suffix}"
        elif kind == AuditKind.TERMINAL and self.status is SagaStatus.REJECTED:
            # A REJECTED run's key may be run again: each run's closing record is its own.
            dedupe_suffix = f"{dedupe_suffix}:{workflow.info().run_id}"
        await write_audit_record(
            kind,
            self.saga_id,
            self.definition.saga_type,
            f"{self.saga_id}:{dedupe_suffix}",
            payload,
        )

    # ---- visibility
    def _set_status(self, status: SagaStatus) -> None:
        self.status = status
        # The time goes in the same upsert as the status, and only when the status changes:
        # a saga's history holds no command that histories recorded before it lacked.
        self._upsert(
            [SAGA_STATUS.value_set(status.value)],
            when_changed=[SAGA_STATUS_SINCE.value_set(workflow.now())],
        )
        self._show_details()

    def _upsert(
        self,
        updates: list[SearchAttributeUpdate[str]],
        when_changed: Sequence[SearchAttributeUpdate[Any]] = (),
    ) -> None:
        """Upsert only what changes (the client already sets type and status at start), with
        `when_changed` if anything does."""
        current = workflow.info().typed_search_attributes
        changed: list[SearchAttributeUpdate[Any]] = [
            u for u in updates if current.get(u.key) != u.value
        ]
        if changed:
            changed.extend(when_changed)
            workflow.upsert_search_attributes(changed)

    def _show_details(self) -> None:
        # Several times a step: the same fields as the query's view, built from values the
        # runtime's own models already checked, without validating them again (nor the
        # snapshots, which the details do not show).
        view = SagaView.model_construct(**self._view_fields(), snapshots=[])
        if self._amount is None:
            self._amount = amount_text(self.request)
        details = current_details(
            view,
            self.request,
            self.infrastructure.describe(),
            amount=self._amount,
            shown_on=workflow.info().workflow_id,
        )
        workflow.set_current_details(details)

    def _outcome(self) -> SagaOutcome:
        return SagaOutcome(
            saga_id=self.saga_id,
            saga_type=self.definition.saga_type,
            status=self.status,
            failure=self.failure,
            compensations=list(self.compensations),
            operator_actions=list(self.operator_actions),
            pivot=self._pivot_name,
            pivot_passed=self.forward_only,
            ignored_stops=list(self.ignored_stops),
            inquiries=list(self.inquiries),
        )


# ---- one step activity, regular or local, its failure read the same for both
LOCAL_RETRY_THRESHOLD = timedelta(milliseconds=1)
"""Every backoff between a local step's attempts is a durable timer in the history, never a
sleep inside the worker: it survives a worker restart and shows in the Temporal UI. (Zero
would mean the SDK's default, one minute of sleeping in the worker.)"""


class StepActivityError(Exception):
    """A step activity that failed for good, with what the saga's outcome reports of it."""

    def __init__(
        self,
        error_type: str,
        message: str,
        *,
        attempts: int,
        business: bool,
        deadline: bool,
        claimed_by: str | None = None,
        retry_class: RetryClass | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.claimed_by = claimed_by
        self.field = field
        """The request field whose account the step refused, when the activity named it."""
        self.retry_class = retry_class
        """The class of the fault that ended the run, when the step's activity said it."""
        self.error_type = error_type
        self.message = message
        self.attempts = attempts
        self.business = business
        self.deadline = deadline
        """The saga's deadline (the activity's schedule-to-close timeout) ended the retries."""


async def run_step_activity(
    step: StepDefinition[Any],
    activity: str,
    call: Any,
    *,
    retry: RetrySpec,
    summary: str,
    result_type: type | None = None,
    deadline_in: timedelta | None = None,
    wait_for_cancel: bool = False,
) -> Any:
    """Run `activity` with the step's timeout; raises StepActivityError when it fails for good.

    `deadline_in` bounds the attempts and the backoffs between them (schedule-to-close).
    Temporal does not enforce that bound across a local activity's retries: a saga with local
    steps races its deadline against a timer instead.
    """
    cancellation = (
        workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
        if wait_for_cancel
        else workflow.ActivityCancellationType.TRY_CANCEL
    )
    try:
        if step.local:
            return await workflow.execute_local_activity(
                activity,
                call,
                result_type=result_type,
                start_to_close_timeout=step.timeout,
                schedule_to_close_timeout=deadline_in,
                retry_policy=retry.to_retry_policy(),
                local_retry_threshold=LOCAL_RETRY_THRESHOLD,
                cancellation_type=cancellation,
                summary=summary,
            )
        return await workflow.execute_activity(
            activity,
            call,
            result_type=result_type,
            start_to_close_timeout=step.timeout,
            schedule_to_close_timeout=deadline_in,
            retry_policy=retry.to_retry_policy(),
            cancellation_type=cancellation,
            summary=summary,
        )
    except ActivityError as err:
        raise _from_activity_error(err, retry.policy_attempts) from err
    except ApplicationError as err:
        # A local activity's own failure arrives unwrapped, not as the cause of an ActivityError.
        raise _from_application_error(err, retry.policy_attempts) from err


def _from_activity_error(err: ActivityError, max_attempts: int) -> StepActivityError:
    cause = err.cause
    non_retryable = err.retry_state is RetryState.NON_RETRYABLE_FAILURE
    deadline = err.retry_state is RetryState.TIMEOUT
    if isinstance(cause, ApplicationError):
        return _from_application_error(
            cause, max_attempts, non_retryable=non_retryable, deadline=deadline
        )
    return StepActivityError(
        type(cause).__name__ if cause is not None else type(err).__name__,
        str(cause if cause is not None else err),
        attempts=max_attempts,
        business=non_retryable,
        deadline=deadline,
        # Every run timed out: the worker died or lost Temporal, as far as the saga can tell.
        retry_class=RetryClass.INFRASTRUCTURE if isinstance(cause, TimeoutError) else None,
    )


def _from_application_error(
    err: ApplicationError,
    max_attempts: int,
    *,
    non_retryable: bool = False,
    deadline: bool = False,
) -> StepActivityError:
    error_type = err.type or type(err).__name__
    details = err.details[0] if err.details else None
    attempts = max_attempts
    if not isinstance(details, dict):
        details = {}
    if isinstance(details.get("attempt"), int):
        attempts = details["attempt"]
    claimed_by = details.get("claimed_by")
    field = details.get(REFUSED_FIELD)
    retry_class = details.get("retry_class")
    # The step's activity ended a retry class at its own C: exhausted, not a business refusal.
    exhausted = details.get(RETRIES_EXHAUSTED) is True
    business = is_business_error_type(error_type) or non_retryable or err.non_retryable
    return StepActivityError(
        error_type,
        str(err),
        attempts=attempts,
        business=business and not exhausted,
        deadline=deadline,
        claimed_by=claimed_by if isinstance(claimed_by, str) else None,
        retry_class=_retry_class(retry_class),
        field=field if isinstance(field, str) else None,
    )


def _retry_class(value: object) -> RetryClass | None:
    return RetryClass(value) if isinstance(value, str) and value in set(RetryClass) else None


def _id_reused(failed: StepActivityError) -> StepFailure:
    return StepFailure(
        step_name=None,
        reason=FailureReason.SAGA_ID_REUSED,
        error_type=failed.error_type,
        message=failed.message,
        claimed_by=failed.claimed_by,
    )
