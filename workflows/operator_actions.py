"""Operator actions outside a saga: verified before anything is done, recorded after.

`OperatorAction` verifies the operator's proof; an account action (a status, or an account
opened with an overdraft limit) is then applied by the worker,
a schedule action by the client, which reports it taken; the audit record names the verified
operator. `Funding` creates money only when a second verified operator approves the first's
proposal.
"""

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Protocol

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import JsonValue

    from sagas.engine import (
        ACCOUNT_LIMIT_ACTIVITY,
        ACCOUNT_STATUS_ACTIVITY,
        ACTION_ABANDONED_SIGNAL,
        ACTION_TAKEN_SIGNAL,
        ACTION_WAIT,
        APPROVE_FUNDING_UPDATE,
        FUNDING_ACTIVITY,
        FUNDING_VIEW_QUERY,
        FUNDING_WAIT,
        FUNDING_WORKFLOW,
        OPERATOR_ACTION_WORKFLOW,
        OPERATOR_VERIFIED_UPDATE,
        AuditKind,
        FundingApproval,
        FundingCall,
        FundingRequest,
        FundingStatus,
        FundingView,
        OperatorAct,
        OperatorActionRequest,
        OperatorBinding,
        OperatorRole,
        VerifiedOperator,
        funding_proposal,
        operator_refused,
        token_digest,
        validated_operator,
        verified_operator,
        write_audit_record,
    )

TOLD_WAIT = timedelta(minutes=1)
"""How long a refused action waits for its caller to ask how the check went."""
LEDGER_TIMEOUT = timedelta(seconds=30)
LEDGER_RETRY = RetryPolicy(maximum_interval=timedelta(minutes=1))
"""Unlimited attempts, capped interval: a ledger outage delays the action, a business refusal
(non-retryable) ends it."""


class VerifiedFirst:
    """The proof of the operator who starts the workflow is checked before anything else; the
    caller learns the outcome through the `operator_verified` update. The token must be bound
    to this workflow and `act` (the identity activity checks it and spends its `jti`); approvals
    that arrive later as updates are checked in their validator (`validate_approval`)."""

    def __init__(self) -> None:
        self._identity: VerifiedOperator | None = None
        self._refusal: str | None = None
        self._told = False
        self._spent: set[str] = set()

    async def _verify(
        self, proof: str, role: OperatorRole, act: str, refusal: str | None = None
    ) -> VerifiedOperator | None:
        """The verified operator, whose token is bound to `act` on this workflow; None, once
        the caller heard why, when the request is refused (`refusal`) or the proof is."""
        if refusal is None:
            binding = OperatorBinding(workflow_id=workflow.info().workflow_id, action=act)
            self._spent.add(token_digest(proof))
            try:
                self._identity = await verified_operator(proof, role, binding)
            except ApplicationError as err:  # the refusal, for the caller's update
                refusal = err.message
        if refusal is not None:
            self._refusal = refusal
            await until(lambda: self._told, TOLD_WAIT)
            return None
        return self._identity

    @workflow.update(name=OPERATOR_VERIFIED_UPDATE)
    async def operator_verified(self) -> str:
        """The verified operator's name; refused (OperatorRefusedError) with the reason."""
        await workflow.wait_condition(
            lambda: self._identity is not None or self._refusal is not None
        )
        self._told = True
        if self._identity is None:
            raise operator_refused(self._refusal or "refused")
        return self._identity.name


@workflow.defn(name=OPERATOR_ACTION_WORKFLOW)
class OperatorActionWorkflow(VerifiedFirst):
    """One verified operator action on an account or a schedule, and its audit record."""

    def __init__(self) -> None:
        super().__init__()
        self._taken: dict[str, JsonValue] | None = None
        self._abandoned = False

    @workflow.run
    async def run(self, request: OperatorActionRequest) -> dict[str, JsonValue]:
        identity = await self._verify(
            request.proof, OperatorRole.OPERATOR, request.kind.value, request.refusal()
        )
        if identity is None:
            return {}
        if request.account_status is not None:
            self._taken = await workflow.execute_activity(
                ACCOUNT_STATUS_ACTIVITY,
                request.account_status,
                result_type=dict,
                start_to_close_timeout=LEDGER_TIMEOUT,
                retry_policy=LEDGER_RETRY,
            )
        elif request.account_limit is not None:
            self._taken = await workflow.execute_activity(
                ACCOUNT_LIMIT_ACTIVITY,
                request.account_limit,
                result_type=dict,
                start_to_close_timeout=LEDGER_TIMEOUT,
                retry_policy=LEDGER_RETRY,
            )
        elif not await until(lambda: self._taken is not None or self._abandoned, ACTION_WAIT):
            return {}
        if self._taken is None:
            return {}
        payload: dict[str, JsonValue] = {
            "operator": identity.name,
            "identity": identity.model_dump(mode="json"),
            "note": request.note,
            **self._taken,
        }
        await write_audit_record(
            request.kind,
            request.subject_id,
            request.subject_type,
            workflow.info().workflow_id,
            payload,
        )
        return self._taken

    @workflow.signal(name=ACTION_TAKEN_SIGNAL)
    def action_taken(self, details: dict[str, JsonValue]) -> None:
        self._taken = details

    @workflow.signal(name=ACTION_ABANDONED_SIGNAL)
    def action_abandoned(self) -> None:
        self._abandoned = True


@workflow.defn(name=FUNDING_WORKFLOW)
class FundingWorkflow(VerifiedFirst):
    """Money into a customer account from @funding: one operator proposes, another approves,
    then the worker posts the entry. Unapproved after a day, it expires having created none."""

    def __init__(self) -> None:
        super().__init__()
        self._view: FundingView | None = None

    @workflow.run
    async def run(self, request: FundingRequest) -> FundingView:
        view = self._view = FundingView(
            funding_id=workflow.info().workflow_id,
            account_id=request.account_id,
            amount=request.amount,
            currency=request.currency,
            status=FundingStatus.AWAITING_APPROVAL,
        )
        maker = await self._verify(
            request.proof, OperatorRole.OPERATOR, OperatorAct.PROPOSE, request.refusal()
        )
        if maker is None:
            view.status = FundingStatus.REFUSED
            return view
        view.proposed_by = maker
        facts = view.model_dump(mode="json", exclude={"status", "proposed_by"})
        await self._record(AuditKind.FUNDING_PROPOSED, facts | {"note": request.note}, maker)
        if not await until(lambda: view.approved_by is not None, FUNDING_WAIT):
            view.status = FundingStatus.EXPIRED
            await self._record(AuditKind.FUNDING_EXPIRED, facts, None)
            return view
        call = FundingCall(
            funding_key=request.funding_key,
            account_id=request.account_id,
            amount=request.amount,
            currency=request.currency,
        )
        view.entry_id = await workflow.execute_activity(
            FUNDING_ACTIVITY,
            call,
            result_type=str,
            start_to_close_timeout=LEDGER_TIMEOUT,
            retry_policy=LEDGER_RETRY,
        )
        view.status = FundingStatus.FUNDED
        funded = facts | {"entry_id": view.entry_id}
        await self._record(AuditKind.FUNDING_APPROVED, funded, view.approved_by)
        return view

    @workflow.query(name=FUNDING_VIEW_QUERY)
    def view(self) -> FundingView | None:
        return self._view

    @workflow.update(name=APPROVE_FUNDING_UPDATE)
    async def approve(self, approval: FundingApproval) -> FundingView:
        """Approve the proposal, as an operator with the approver role other than its maker;
        returns the view once the entry is posted."""
        view = self._view
        await approve_proposal(view, approval.proof, self._proposal(), self._spent, "funding")
        assert view is not None
        return view

    @approve.validator
    def _validate_approve(self, approval: FundingApproval) -> None:
        validate_approval(self._view, approval.proof, self._proposal(), self._spent, "funding")

    def _proposal(self) -> str:
        return funding_proposal(self._view) if self._view is not None else ""

    async def _record(
        self, kind: AuditKind, facts: dict[str, JsonValue], by: VerifiedOperator | None
    ) -> None:
        view = self._view
        assert view is not None
        await record_by(kind, view.funding_id, "funding", facts, by)


class Proposal(Protocol):
    """What one verified operator proposed and another approves."""

    status: FundingStatus
    proposed_by: VerifiedOperator | None
    approved_by: VerifiedOperator | None


def validate_approval(
    proposal: Proposal | None,
    proof: str,
    digest: str,
    spent: set[str],
    what: str,
    also_distinct_from: Sequence[VerifiedOperator] = (),
) -> VerifiedOperator:
    """In an approval's validator: the approver `proof` proves, its token bound to approving
    the proposal with this `digest`; refused (leaving no event) while the proposal is not
    awaiting approval, or when the approver is its proposer or one of `also_distinct_from`."""
    checker = validated_operator(proof, OperatorRole.APPROVER, _approval(digest), spent)
    _check_approver(proposal, checker, what, also_distinct_from)
    return checker


async def approve_proposal(
    proposal: Proposal | None,
    proof: str,
    digest: str,
    spent: set[str],
    what: str,
    also_distinct_from: Sequence[VerifiedOperator] = (),
    on_approved: Callable[[], None] = lambda: None,
) -> None:
    """Take the operator `proof` verifies (the validator checked it; the identity activity
    spends it), with the approver role and neither the proposer nor any of
    `also_distinct_from`, as the approver of the proposal with this `digest`; return once the
    proposal is carried out. `on_approved` runs as the approver is taken, before the proposal
    goes on: what it keeps (the approver's note) is the approver's, whoever else tried."""
    spent.add(token_digest(proof))
    checker = await verified_operator(proof, OperatorRole.APPROVER, _approval(digest))
    _check_approver(proposal, checker, what, also_distinct_from)
    assert proposal is not None  # _check_approver refuses a missing proposal
    on_approved()
    proposal.approved_by = checker
    await workflow.wait_condition(lambda: proposal.status is not FundingStatus.AWAITING_APPROVAL)


def _check_approver(
    proposal: Proposal | None,
    checker: VerifiedOperator,
    what: str,
    also_distinct_from: Sequence[VerifiedOperator],
) -> None:
    awaiting = proposal is not None and proposal.status is FundingStatus.AWAITING_APPROVAL
    if proposal is None or not awaiting or proposal.proposed_by is None or proposal.approved_by:
        raise operator_refused(f"the {what} is not awaiting approval")
    if proposal.proposed_by.same_principal(checker):
        raise operator_refused(
            f"{checker.name} proposed this {what}: another operator approves", "SameOperatorError"
        )
    if any(other.same_principal(checker) for other in also_distinct_from):
        raise operator_refused(
            f"{checker.name} approved this {what}'s excess: another operator approves",
            "SameOperatorError",
        )


def _approval(digest: str) -> OperatorBinding:
    return OperatorBinding(
        workflow_id=workflow.info().workflow_id, action=OperatorAct.APPROVE, proposal=digest
    )


async def record_by(
    kind: AuditKind,
    subject_id: str,
    subject_type: str,
    facts: dict[str, JsonValue],
    by: VerifiedOperator | None,
) -> None:
    """The audit record of a step of a proposal, naming the verified operator who took it."""
    who: dict[str, JsonValue] = (
        {"operator": by.name, "identity": by.model_dump(mode="json")} if by else {}
    )
    await write_audit_record(kind, subject_id, subject_type, f"{subject_id}:{kind}", facts | who)


async def until(condition: Callable[[], bool], timeout: timedelta) -> bool:
    """Whether `condition` came true within `timeout`."""
    try:
        await workflow.wait_condition(condition, timeout=timeout)
    except TimeoutError:
        return False
    return True
