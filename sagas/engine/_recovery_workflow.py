"""The recovery of a killed saga: found by the collector, proposed by one verified operator,
approved by another, then run as the saga itself from its durable snapshot.

Before its pivot the saga is compensated (its stack, last first); from the pivot on its
remaining steps run forward from the step in flight. Every effect keeps the saga's own key and
run chain, so what already happened is not done twice. A compensation or step that then fails
for a business reason parks the recovery like any saga (`attention retry|propose|approve` on
the recovery's id).
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue
from temporalio import workflow
from temporalio.exceptions import ApplicationError

from sagas.engine._audit_call import AuditKind
from sagas.engine._audit_trail import write_audit_record
from sagas.engine._current_details import recovery_details
from sagas.engine._definition import SagaDefinition, SagaRequest
from sagas.engine._operator_binding import OperatorAct, OperatorBinding
from sagas.engine._operator_identity import OperatorRole, VerifiedOperator, verified_operator
from sagas.engine._operator_proofs import token_digest, validated_operator
from sagas.engine._outcome import SagaOutcome
from sagas.engine._recovery import (
    APPROVE_RECOVERY_UPDATE,
    PROPOSE_RECOVERY_UPDATE,
    RECOVERY_LOAD_ACTIVITY,
    RECOVERY_LOAD_RETRY,
    RECOVERY_LOAD_TIMEOUT,
    RECOVERY_VIEW_QUERY,
    KilledSaga,
    RecoveryDecision,
    RecoveryProposal,
    RecoveryStatus,
    RecoveryView,
    SagaEffects,
    recoverable,
    stack_to_undo,
)
from sagas.engine._runtime import SagaRuntime
from sagas.engine._snapshot import RunClaim
from sagas.engine._status import SagaStatus
from sagas.engine._workflow_base import SagaWorkflow
from sagas.foundations import ProposalStaleError, RecoveryRefusedError, SameOperatorError


class SagaRecoveryBase(SagaWorkflow):
    """One killed saga's one recovery (workflow id `recovery:<saga id>`); the worker's
    workflow class subclasses it and defines `run` as `recover(killed)`."""

    def __init__(self) -> None:
        self._recovery: RecoveryView | None = None
        self._proposals = 0
        self._approved = False
        self._request: SagaRequest | None = None

    async def recover(self, killed: KilledSaga) -> SagaOutcome:
        definition = recoverable(workflow.info().task_queue, killed.saga_type)
        if definition is None:  # fails the workflow task: retried until a worker runs the type
            raise RuntimeError(f"no worker on this task queue runs saga type {killed.saga_type}")
        effects = await _load(killed.saga_id)
        view = self._recovery = RecoveryView(
            killed=killed,
            status=RecoveryStatus.AWAITING_PROPOSAL,
            effects=effects,
            compensations=_compensations(definition, effects),
        )
        self._show_details(definition)
        await self._record(AuditKind.SAGA_KILLED, "killed", {})
        await workflow.wait_condition(lambda: self._approved)
        view.status = RecoveryStatus.RECOVERING
        view.effects = await _load(killed.saga_id)
        view.compensations = _compensations(definition, view.effects)
        claim = RunClaim(
            saga_id=killed.saga_id,
            saga_type=killed.saga_type,
            run_chain=view.effects.run_chain or killed.run_chain,
        )
        request = definition.request_type.model_validate(killed.request)
        runtime = self._runtime = SagaRuntime(definition, request, killed=claim)
        outcome = await runtime.recover(view.effects.snapshots, killed.closed_as, self._who())
        view.outcome_status = outcome.status
        view.status = RecoveryStatus.RECOVERED
        return outcome

    def _show_details(self, definition: SagaDefinition[Any, Any] | None) -> None:
        """Until the recovery runs as the saga (whose runtime then shows its own details)."""
        view = self._recovery
        assert view is not None
        if definition is not None:
            self._request = _request_of(definition, view)
        workflow.set_current_details(recovery_details(view, self._request))

    @workflow.query(name=RECOVERY_VIEW_QUERY)
    def recovery_view(self) -> RecoveryView | None:
        return self._recovery

    @workflow.update(name=PROPOSE_RECOVERY_UPDATE)
    async def propose_recovery(self, decision: RecoveryDecision) -> str:
        """Propose the recovery as a verified operator; returns the proposal's id, which
        another operator's approval names."""
        self._spent_tokens().add(token_digest(decision.proof))
        maker = await verified_operator(
            decision.proof, OperatorRole.OPERATOR, _binding(OperatorAct.PROPOSE_RECOVERY)
        )
        view = await self._read()
        self._proposals += 1
        proposal = RecoveryProposal(proposal_id=f"r{self._proposals}", by=maker, note=decision.note)
        await self._record(
            AuditKind.RECOVERY_PROPOSED,
            f"proposal:{proposal.proposal_id}",
            {"proposal": proposal.model_dump(mode="json")},
        )
        if proposal.proposal_id == f"r{self._proposals}":  # no newer proposal meanwhile
            view.proposal = proposal
            view.status = RecoveryStatus.AWAITING_APPROVAL
            self._show_details(None)
        return proposal.proposal_id

    @propose_recovery.validator
    def _validate_recovery_proposal(self, decision: RecoveryDecision) -> None:
        if self._recovery is not None:
            self._awaiting(self._recovery)
        binding = _binding(OperatorAct.PROPOSE_RECOVERY)
        validated_operator(decision.proof, OperatorRole.OPERATOR, binding, self._spent_tokens())

    @workflow.update(name=APPROVE_RECOVERY_UPDATE)
    async def approve_recovery(self, decision: RecoveryDecision) -> SagaStatus:
        """Approve another operator's proposal; returns the saga's status once the recovery
        closed it, or parked."""
        self._spent_tokens().add(token_digest(decision.proof))
        checker = await verified_operator(
            decision.proof,
            OperatorRole.APPROVER,
            _binding(OperatorAct.APPROVE_RECOVERY, decision.proposal_id),
        )
        view = await self._read()
        proposal = view.proposal
        if proposal is None or decision.proposal_id != proposal.proposal_id:
            raise _refused(
                ProposalStaleError,
                f"proposal {decision.proposal_id!r} is not the recovery's open proposal"
                f" ({proposal.proposal_id if proposal else 'none is open'})",
            )
        if proposal.by.same_principal(checker):
            raise _refused(
                SameOperatorError,
                f"{checker.name} proposed {proposal.proposal_id}: another operator approves",
            )
        view.approved_by = checker
        view.approval_note = decision.note
        await self._record(AuditKind.RECOVERY_APPROVED, "approved", {})
        self._approved = True
        # The runtime waits for this handler before it closes: wait for its status, not for it.
        await workflow.wait_condition(
            lambda: (
                self._runtime is not None
                and (self._runtime.status.is_terminal or self._runtime.parked)
            )
        )
        assert self._runtime is not None
        return self._runtime.status

    @approve_recovery.validator
    def _validate_recovery_approval(self, decision: RecoveryDecision) -> None:
        view = self._recovery
        if view is not None:
            self._awaiting(view)
        binding = _binding(OperatorAct.APPROVE_RECOVERY, decision.proposal_id)
        checker = validated_operator(
            decision.proof, OperatorRole.APPROVER, binding, self._spent_tokens()
        )
        proposal = view.proposal if view is not None else None
        if proposal is not None and proposal.by.same_principal(checker):
            raise _refused(
                SameOperatorError,
                f"{checker.name} proposed {proposal.proposal_id}: another operator approves",
            )

    async def _read(self) -> RecoveryView:
        """The recovery once it has read the saga's effects, still waiting for its operators."""
        await workflow.wait_condition(lambda: self._recovery is not None)
        assert self._recovery is not None
        return self._awaiting(self._recovery)

    def _awaiting(self, view: RecoveryView) -> RecoveryView:
        """`view`, refused once the recovery is approved or when it cannot run."""
        saga_id = view.killed.saga_id
        if view.approved_by is not None:
            raise _refused(
                RecoveryRefusedError,
                f"saga {saga_id} is already {view.status.value.lower()}: its one recovery was "
                f"approved by {view.approved_by.name}",
            )
        if view.killed.request is None:
            raise _refused(
                RecoveryRefusedError,
                f"saga {saga_id}: its request is no longer in Temporal's history, so it cannot "
                "be recovered from here; undo or finish its effects by hand",
            )
        return view

    def _who(self) -> dict[str, JsonValue]:
        view = self._recovery
        assert view is not None
        assert view.proposal is not None
        assert view.approved_by is not None
        return {
            "closed_as": view.killed.closed_as,
            "killed_run_id": view.killed.run_id,
            "proposed_by": _operator(view.proposal.by, view.proposal.note),
            "approved_by": _operator(view.approved_by, view.approval_note),
        }

    async def _record(self, kind: AuditKind, suffix: str, extra: dict[str, JsonValue]) -> None:
        view = self._recovery
        assert view is not None
        killed = view.killed
        payload: dict[str, JsonValue] = {
            "saga_id": killed.saga_id,
            "saga_type": killed.saga_type,
            "status": SagaStatus.KILLED.value,
            "closed_as": killed.closed_as,
            "closed_at": killed.closed_at.isoformat() if killed.closed_at else None,
            "shown_as": killed.shown_as,
            "killed_run_id": killed.run_id,
            "input": killed.request,
            "effects": view.effects.payload() | {"compensations": list(view.compensations)},
            **extra,
        }
        if kind is AuditKind.RECOVERY_APPROVED:
            payload |= self._who()
        await write_audit_record(
            kind, killed.saga_id, killed.saga_type, f"{killed.saga_id}:{suffix}", payload
        )


def _compensations(definition: SagaDefinition[Any, Any], effects: SagaEffects) -> list[str]:
    latest = effects.snapshots[-1] if effects.snapshots else None
    return [entry.step_name for entry in reversed(stack_to_undo(definition, latest))]


def _request_of(definition: SagaDefinition[Any, Any], view: RecoveryView) -> SagaRequest | None:
    """The killed saga's request, for its amount; None when Temporal no longer had it."""
    if view.killed.request is None:
        return None
    try:
        request: SagaRequest = definition.request_type.model_validate(view.killed.request)
    except ValueError:
        return None
    return request


def _operator(by: VerifiedOperator, note: str) -> dict[str, JsonValue]:
    return {"operator": by.name, "identity": by.model_dump(mode="json"), "note": note}


def _binding(act: OperatorAct, proposal_id: str | None = None) -> OperatorBinding:
    return OperatorBinding(
        workflow_id=workflow.info().workflow_id, action=act, proposal=proposal_id or ""
    )


def _refused(error: type[Exception], message: str) -> ApplicationError:
    return ApplicationError(message, type=error.__name__, non_retryable=True)


async def _load(saga_id: str) -> SagaEffects:
    effects: SagaEffects = await workflow.execute_activity(
        RECOVERY_LOAD_ACTIVITY,
        saga_id,
        result_type=SagaEffects,
        start_to_close_timeout=RECOVERY_LOAD_TIMEOUT,
        retry_policy=RECOVERY_LOAD_RETRY,
        summary=f"read what {saga_id} did from the database",
    )
    return effects
