"""What a saga reports: its view for queries and its final outcome."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from sagas.engine._events import EventRecord
from sagas.engine._inquiry import InquiryRecord
from sagas.engine._operator_identity import MAX_PROOF_LENGTH, VerifiedOperator
from sagas.engine._snapshot import CompensationEntry, Snapshot
from sagas.engine._status import SagaStatus
from sagas.foundations import FundsagaError


class FailureReason(StrEnum):
    """Why the forward path stopped."""

    BUSINESS_ERROR = "business_error"  # a step's action was refused for a business reason
    RETRIES_EXHAUSTED = "retries_exhausted"  # a step's action failed on every attempt
    CANCELLED = "cancelled"  # the saga was cancelled
    DEADLINE = "deadline"  # the saga's deadline passed
    INVALID_INPUT = "invalid_input"  # the input was refused before any step: REJECTED
    SAGA_ID_REUSED = "saga_id_reused"  # another run chain already took effects under this id
    KILLED = "killed"  # its execution was closed from outside before its pivot: recovered backwards


class CompensationResult(StrEnum):
    """How one compensation attempt ended."""

    COMPENSATED = "compensated"  # the step's effect is undone
    FAILED = "failed"  # the compensation failed for good; the saga parks
    RESOLVED = "resolved"  # operators undid the effect by hand: one proposed, another approved


class OperatorDecision(StrEnum):
    """What an operator decided for a parked saga."""

    RETRY = "retry"  # run the parked compensation (or, parked on a step, the step) again
    PROPOSE = "propose"  # propose a resolution by hand; another operator approves it
    APPROVE = "approve"  # approve a proposal: the compensation is popped, or the parked step
    # ends the saga RESOLVED


REFUSED_FIELD = "field"
"""The key, in a step activity's failure details, of the request field it refused."""


class StepFailure(BaseModel):
    """Why the forward path stopped."""

    step_name: str | None
    reason: FailureReason
    error_type: str
    message: str
    attempts: int = 0
    field: str | None = None
    """The refused input field: the request's when the reason is invalid_input; the one naming
    the account a step refused (unknown, frozen, closed, another currency) otherwise."""
    claimed_by: str | None = None
    """The run chain that holds the saga id, when the reason is saga_id_reused."""


class CompensationOutcome(BaseModel):
    step_name: str
    compensation: str
    result: CompensationResult
    message: str = ""
    at: datetime
    error_type: str = ""
    """The failure's error type, when the result is failed (empty in histories from before)."""


class OperatorAction(BaseModel):
    """An operator's decision on a parked saga.

    The caller sends `proof` (its access token); the saga verifies it, then records the
    verified `identity` and its name as `operator`, and drops the proof.
    """

    operator: str = Field(default="", max_length=200)
    """Who the action is by: as the caller names itself until the saga verified it."""
    note: str = Field(default="", max_length=4000)
    decision: OperatorDecision | None = None
    """Filled in by the saga."""
    proposal_id: str | None = Field(default=None, max_length=40)
    """The proposal an approval names; the saga fills it in on a proposal."""
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)
    """The operator's access token; never recorded."""
    identity: VerifiedOperator | None = None
    """Filled in by the saga once the proof is verified (None in histories from before)."""

    def verified_as(self, identity: VerifiedOperator) -> OperatorAction:
        """This action as the saga records it: by `identity`, without its proof."""
        return self.model_copy(
            update={"operator": identity.name, "identity": identity, "proof": ""}
        )


class SagaView(BaseModel):
    """The saga as the `state` query returns it."""

    saga_id: str
    saga_type: str
    status: SagaStatus
    current_step: str | None
    snapshots: list[Snapshot]
    compensation_stack: list[CompensationEntry]
    failure: StepFailure | None
    compensations: list[CompensationOutcome]
    operator_actions: list[OperatorAction] = []
    pivot: str | None = None
    """The saga's point of no return, if its definition has one."""
    parked_on_step: bool = False
    """Parked in NEEDS_ATTENTION on a step's action (after its pivot, or on an unknown
    outcome), not on a compensation: an operator's retry runs the step again."""
    pivot_passed: bool = False
    ignored_stops: list[StepFailure] = []
    """Cancels and deadlines that arrived past the pivot (or while parked on a step)."""
    inquiries: list[InquiryRecord] = []
    events: list[EventRecord] = []
    """How each wait for an external event ended (received or timed out)."""
    waiting_on: str | None = None
    """The fault of the infrastructure the saga waits out now (an error type), if any: it goes
    on by itself once the fault passes."""
    waiting_since: datetime | None = None


class SagaOutcome(BaseModel):
    """How the saga ended: the result of its workflow whatever the status (engine faults aside).

    Only COMPLETED is success: the client's `wait()` raises a SagaNotCompletedError carrying
    this outcome for every other status.
    """

    saga_id: str
    saga_type: str
    status: SagaStatus
    failure: StepFailure | None = None
    compensations: list[CompensationOutcome] = []
    operator_actions: list[OperatorAction] = []
    pivot: str | None = None
    pivot_passed: bool = False
    ignored_stops: list[StepFailure] = []
    inquiries: list[InquiryRecord] = []


class SagaNotCompletedError(FundsagaError):
    """The saga ended other than COMPLETED: nothing it was asked to do is done. See `outcome`."""

    def __init__(self, outcome: SagaOutcome) -> None:
        failure = outcome.failure
        why = f": {failure.reason.value}: {failure.message}" if failure is not None else ""
        super().__init__(f"saga {outcome.saga_id} ended {outcome.status.value}{why}")
        self.outcome = outcome


class SagaCompensatedError(SagaNotCompletedError):
    """Every step taken was undone: no net effect remains."""


class SagaResolvedError(SagaNotCompletedError):
    """An operator resolved the saga by hand after a compensation could not run."""


class SagaRejectedError(SagaNotCompletedError):
    """The saga took no effect: its input was refused, or its id was already used."""


_ERROR_BY_STATUS: dict[SagaStatus, type[SagaNotCompletedError]] = {
    SagaStatus.COMPENSATED: SagaCompensatedError,
    SagaStatus.RESOLVED: SagaResolvedError,
    SagaStatus.REJECTED: SagaRejectedError,
}


def completed_or_raise(outcome: SagaOutcome) -> SagaOutcome:
    """The outcome of a COMPLETED saga; the typed SagaNotCompletedError for any other end."""
    if outcome.status is SagaStatus.COMPLETED:
        return outcome
    raise _ERROR_BY_STATUS.get(outcome.status, SagaNotCompletedError)(outcome)
