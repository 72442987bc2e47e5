"""Killed sagas: a saga whose Temporal execution was closed from outside (terminated, timed out,
failed, past the history limit) is taken over by one recovery workflow.

The collector starts it (id `recovery:<saga id>`, never twice); it records what the database
says the saga did, then waits for two operators: one proposes the recovery, another approves
it. The recovery then reads the saga's latest snapshot and runs, as that saga and with its run
chain, its compensations (before the pivot) or its remaining steps (from the pivot on).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, JsonValue
from temporalio.common import RetryPolicy

from sagas.engine._definition import SagaDefinition
from sagas.engine._operator_identity import MAX_PROOF_LENGTH, VerifiedOperator
from sagas.engine._snapshot import CompensationEntry, Snapshot
from sagas.engine._status import SagaStatus

RECOVERY_WORKFLOW = "SagaRecovery"
RECOVERY_PREFIX = "recovery:"
RECOVERY_LOAD_ACTIVITY = "recovery.load"
PROPOSE_RECOVERY_UPDATE = "propose_recovery"
APPROVE_RECOVERY_UPDATE = "approve_recovery"
RECOVERY_VIEW_QUERY = "recovery_view"
RECOVERY_LOAD_TIMEOUT = timedelta(seconds=30)
RECOVERY_LOAD_RETRY = RetryPolicy(maximum_interval=timedelta(minutes=1))
"""Unlimited attempts, capped interval: a database outage delays the recovery, never ends it."""
KILLED_EXECUTION_STATUSES = ("Terminated", "TimedOut", "Failed")
"""How Temporal's visibility names an execution that closed without the engine closing it."""
OPEN_SAGA_STATUSES = (SagaStatus.RUNNING, SagaStatus.COMPENSATING, SagaStatus.NEEDS_ATTENTION)
"""The statuses a saga shows while the engine has not closed it."""


def recovery_id(saga_id: str) -> str:
    """The workflow id of the one recovery of a killed saga."""
    return f"{RECOVERY_PREFIX}{saga_id}"


def killed_saga_id(workflow_id: str) -> str | None:
    """The killed saga a recovery's workflow id names; None for any other id."""
    if not workflow_id.startswith(RECOVERY_PREFIX):
        return None
    return workflow_id[len(RECOVERY_PREFIX) :]


class KilledSaga(BaseModel):
    """A saga whose execution closed without the engine closing it: the recovery's input."""

    saga_id: str
    saga_type: str
    run_id: str
    """The killed execution's run."""
    run_chain: str
    """Its first execution run id: the chain whose claim its effects carry."""
    closed_as: str
    """How Temporal closed it: Terminated, TimedOut, Failed."""
    closed_at: datetime | None = None
    shown_as: str = ""
    """The SagaStatus it still showed (RUNNING, COMPENSATING, NEEDS_ATTENTION)."""
    request: dict[str, JsonValue] | None = None
    """Its request, read from the start of its history; None when Temporal no longer has it."""


class SagaEffects(BaseModel):
    """What the database says a saga did: its claim, snapshots, net effect and open holds."""

    run_chain: str | None
    """The chain that holds the saga's claim; None when it took no step."""
    snapshots: list[Snapshot]
    net_effect: dict[str, str]
    """Per account, the non-zero sum of its postings, as money text."""
    active_holds: list[str]
    """Its holds not yet posted or voided, as "amount on account"."""

    def payload(self) -> dict[str, JsonValue]:
        latest = self.snapshots[-1] if self.snapshots else None
        return {
            "run_chain": self.run_chain,
            "step_in_flight": latest.step_name if latest else None,
            "pivot_passed": bool(latest and latest.forward_only),
            "net_effect": dict(self.net_effect),
            "active_holds": list(self.active_holds),
        }


def stack_to_undo(
    definition: SagaDefinition[Any, Any], latest: Snapshot | None
) -> list[CompensationEntry]:
    """What a recovery before the pivot compensates, last first: the stack the latest snapshot
    holds, and the compensation of the step it was taken for, pushed before that step's action
    ran (which may have committed)."""
    if latest is None or latest.forward_only:
        return []
    stack = list(latest.compensation_stack)
    compensation = definition.steps[latest.step_index].compensation
    if compensation is not None:
        entry = CompensationEntry(
            step_index=latest.step_index, step_name=latest.step_name, compensation=compensation
        )
        stack.append(entry)
    return stack


class RecoveryStatus(StrEnum):
    """Where the recovery of a killed saga stands."""

    AWAITING_PROPOSAL = "AWAITING_PROPOSAL"  # found; an operator proposes the recovery
    AWAITING_APPROVAL = "AWAITING_APPROVAL"  # proposed; another operator approves it
    RECOVERING = "RECOVERING"  # approved: compensations or the remaining steps run
    RECOVERED = "RECOVERED"  # the saga is closed; the outcome says how


class RecoveryDecision(BaseModel):
    """An operator's proposal or approval of a recovery; the proof is never recorded."""

    note: str = Field(default="", max_length=4000)
    proposal_id: str | None = Field(default=None, max_length=40)
    """The proposal an approval names."""
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)


class RecoveryProposal(BaseModel):
    proposal_id: str
    by: VerifiedOperator
    note: str


class RecoveryView(BaseModel):
    """The recovery as its query returns it."""

    killed: KilledSaga
    status: RecoveryStatus
    effects: SagaEffects
    """As the database said when the saga was found, then as the recovery read it."""
    compensations: list[str] = []
    """Before the pivot: the steps whose compensations the recovery runs, next first."""
    proposal: RecoveryProposal | None = None
    approved_by: VerifiedOperator | None = None
    approval_note: str = ""
    outcome_status: SagaStatus | None = None


_DEFINITIONS: dict[str, dict[str, SagaDefinition[Any, Any]]] = {}
"""Per task queue, the saga types its workers run: what a recovery on that queue acts as."""


def register_recoverable(
    task_queue: str, definitions: Mapping[str, SagaDefinition[Any, Any]]
) -> None:
    """The worker on `task_queue` can recover sagas of these types (called as it is built)."""
    _DEFINITIONS.setdefault(task_queue, {}).update(definitions)


def recoverable(task_queue: str, saga_type: str) -> SagaDefinition[Any, Any] | None:
    return _DEFINITIONS.get(task_queue, {}).get(saga_type)
