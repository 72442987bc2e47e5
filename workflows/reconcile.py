"""Resolving a reconciliation break: one verified operator proposes, another approves, then
the worker closes the break (posting the adjustment, if any) and the record names both. An
adjustment beyond the break's difference is approved first by a third operator with the
treasury role; the records state the difference, the adjustment and who approved the excess."""

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import JsonValue

    from sagas.engine import (
        ADJUSTMENT_BOUND_ACTIVITY,
        APPROVE_EXCESS_UPDATE,
        APPROVE_RESOLUTION_UPDATE,
        BREAK_RESOLUTION_WORKFLOW,
        FUNDING_WAIT,
        RESOLUTION_VIEW_QUERY,
        RESOLVE_BREAK_ACTIVITY,
        AdjustmentBound,
        AuditKind,
        BreakResolutionCall,
        BreakResolutionRequest,
        FundingStatus,
        OperatorAct,
        OperatorBinding,
        OperatorRole,
        ResolutionApproval,
        ResolutionView,
        VerifiedOperator,
        operator_refused,
        resolution_proposal,
        token_digest,
        validated_operator,
        verified_operator,
    )
    from sagas.foundations import InvalidRequestError, SameOperatorError
    from sagas.ledger import funding_account_id
    from workflows.operator_actions import (
        LEDGER_RETRY,
        LEDGER_TIMEOUT,
        VerifiedFirst,
        approve_proposal,
        record_by,
        until,
        validate_approval,
    )


@workflow.defn(name=BREAK_RESOLUTION_WORKFLOW)
class BreakResolutionWorkflow(VerifiedFirst):
    def __init__(self) -> None:
        super().__init__()
        self._view: ResolutionView | None = None
        self._excess_taken = False
        """A treasury operator's approval is being recorded: no second one is taken."""

    @workflow.run
    async def run(self, request: BreakResolutionRequest) -> ResolutionView:
        view = self._view = ResolutionView(
            resolution_id=workflow.info().workflow_id,
            break_id=request.break_id,
            note=request.note,
            adjustment=request.adjustment,
            status=FundingStatus.AWAITING_APPROVAL,
        )
        bound, refusal = await self._bound(request)
        maker = await self._verify(
            request.proof, OperatorRole.OPERATOR, OperatorAct.PROPOSE, refusal
        )
        if maker is None or bound is None:
            view.status = FundingStatus.REFUSED
            return view
        view.break_difference, view.exceeds_difference = bound.difference, bound.exceeds
        view.proposed_by = maker
        facts = self._facts()
        await self._record(AuditKind.BREAK_RESOLUTION_PROPOSED, facts, maker)
        if not await until(lambda: view.approved_by is not None, FUNDING_WAIT):
            view.status = FundingStatus.EXPIRED
            await self._record(AuditKind.BREAK_RESOLUTION_EXPIRED, facts, None)
            return view
        assert view.approved_by is not None
        excess = view.excess_approved_by
        call = BreakResolutionCall(
            break_id=request.break_id,
            resolved_by=f"{maker.name} (proposed), {view.approved_by.name} (approved)"
            + (f", {excess.name} (approved the excess)" if excess else ""),
            adjustment=request.adjustment,
            excess_approved_by=excess.name if excess else None,
        )
        applied: dict[str, JsonValue] = await workflow.execute_activity(
            RESOLVE_BREAK_ACTIVITY,
            call,
            result_type=dict,
            start_to_close_timeout=LEDGER_TIMEOUT,
            retry_policy=LEDGER_RETRY,
        )
        entry_id = applied.get("entry_id")
        view.entry_id = entry_id if isinstance(entry_id, int) else None
        view.status = FundingStatus.FUNDED
        resolved = self._facts() | {"entry_id": view.entry_id} | self._excess_approval()
        resolved |= {
            "proposed_by": _acted(maker, request.note),
            "approved_by": _acted(view.approved_by, view.approval_note),
        }
        await self._record(AuditKind.BREAK_RESOLVED, resolved, view.approved_by)
        return view

    @workflow.query(name=RESOLUTION_VIEW_QUERY)
    def view(self) -> ResolutionView | None:
        return self._view

    @workflow.update(name=APPROVE_RESOLUTION_UPDATE)
    async def approve(self, approval: ResolutionApproval) -> ResolutionView:
        """Approve, as an operator with the approver role other than the proposer (and the
        treasury operator who approved the excess); returns the view once the break is resolved.
        An adjustment beyond the break's difference is refused until the excess is approved."""
        view = self._view
        self._refuse_unapproved_excess()

        def keep_note() -> None:
            assert view is not None
            view.approval_note = approval.note

        await approve_proposal(
            view,
            approval.proof,
            self._proposal(),
            self._spent,
            "resolution",
            self._excess(),
            on_approved=keep_note,
        )
        assert view is not None
        return view

    @approve.validator
    def _validate_approve(self, approval: ResolutionApproval) -> None:
        self._refuse_unapproved_excess()
        validate_approval(
            self._view, approval.proof, self._proposal(), self._spent, "resolution", self._excess()
        )

    def _refuse_unapproved_excess(self) -> None:
        view = self._view
        if view is not None and view.exceeds_difference and view.excess_approved_by is None:
            raise operator_refused(
                f"adjustment: {_adjustment_text(view)} is beyond the break's difference "
                f"({view.break_difference or 'none in one currency'}): an operator with the "
                f"treasury role approves the excess first (`fundsaga reconcile approve-excess "
                f"{view.break_id}`)",
                InvalidRequestError.__name__,
            )

    def _excess(self) -> list[VerifiedOperator]:
        view = self._view
        return [view.excess_approved_by] if view and view.excess_approved_by else []

    def _proposal(self) -> str:
        return resolution_proposal(self._view) if self._view is not None else ""

    @workflow.update(name=APPROVE_EXCESS_UPDATE)
    async def approve_excess(self, approval: ResolutionApproval) -> ResolutionView:
        """Approve an adjustment beyond the break's difference, as an operator with the treasury
        role other than the proposer; the resolution still needs its approver's approval."""
        self._spent.add(token_digest(approval.proof))
        treasurer = await verified_operator(
            approval.proof, OperatorRole.TREASURY, self._excess_binding()
        )
        self._check_treasurer(treasurer)
        view = self._view
        assert view is not None  # _check_treasurer refuses without a proposal
        self._excess_taken = True
        view.excess_note = approval.note
        # Recorded before the approver may act on it: the records keep the order of the acts.
        approved = self._facts() | {"excess_approved_by": _acted(treasurer, approval.note)}
        await self._record(AuditKind.BREAK_EXCESS_APPROVED, approved, treasurer)
        view.excess_approved_by = treasurer
        return view

    @approve_excess.validator
    def _validate_approve_excess(self, approval: ResolutionApproval) -> None:
        treasurer = validated_operator(
            approval.proof, OperatorRole.TREASURY, self._excess_binding(), self._spent
        )
        self._check_treasurer(treasurer)

    def _check_treasurer(self, treasurer: VerifiedOperator) -> None:
        view = self._view
        if view is None or view.proposed_by is None or not view.exceeds_difference:
            raise operator_refused("no adjustment beyond its break's difference awaits approval")
        if view.status is not FundingStatus.AWAITING_APPROVAL or self._excess_taken:
            raise operator_refused("the excess is approved already, or the resolution closed")
        if view.proposed_by.same_principal(treasurer):
            raise operator_refused(
                f"{treasurer.name} proposed this resolution: another operator approves the excess",
                SameOperatorError.__name__,
            )

    def _excess_binding(self) -> OperatorBinding:
        return OperatorBinding(
            workflow_id=workflow.info().workflow_id,
            action=OperatorAct.APPROVE_EXCESS,
            proposal=self._proposal(),
        )

    async def _bound(
        self, request: BreakResolutionRequest
    ) -> tuple[AdjustmentBound | None, str | None]:
        """The break's difference and the adjustment against it; or why the proposal is refused
        (no such break, an adjustment that does not read as money)."""
        call = BreakResolutionCall(
            break_id=request.break_id, resolved_by="", adjustment=request.adjustment
        )
        try:
            bound: AdjustmentBound = await workflow.execute_activity(
                ADJUSTMENT_BOUND_ACTIVITY,
                call,
                result_type=AdjustmentBound,
                start_to_close_timeout=LEDGER_TIMEOUT,
                retry_policy=LEDGER_RETRY,
            )
        except ActivityError as err:
            cause = err.cause
            return None, cause.message if isinstance(cause, ApplicationError) else str(err)
        return bound, None

    def _excess_approval(self) -> dict[str, JsonValue]:
        view = self._view
        if view is None or view.excess_approved_by is None:
            return {}
        return {"excess_approved_by": _acted(view.excess_approved_by, view.excess_note)}

    def _facts(self) -> dict[str, JsonValue]:
        """What the records say: the break, the note and the adjustment as the funding
        witness reads it (the account credited and the amount)."""
        view = self._view
        assert view is not None
        facts: dict[str, JsonValue] = {
            "break_id": view.break_id,
            "note": view.note,
            "break_difference": view.break_difference,
            "exceeds_difference": view.exceeds_difference,
        }
        adjustment = view.adjustment
        if adjustment is not None:
            facts |= {
                "adjustment": adjustment.model_dump(mode="json"),
                **_credited(adjustment.account_id, adjustment.amount, adjustment.currency),
            }
        return facts

    async def _record(
        self, kind: AuditKind, facts: dict[str, JsonValue], by: VerifiedOperator | None
    ) -> None:
        view = self._view
        assert view is not None
        await record_by(kind, view.resolution_id, "break", facts, by)


def _acted(by: VerifiedOperator, note: str) -> dict[str, JsonValue]:
    """An operator who took one act of the resolution, as the worker verified them, with the
    note they gave with it."""
    return {"operator": by.name, "identity": by.model_dump(mode="json"), "note": note}


def _adjustment_text(view: ResolutionView) -> str:
    adjustment = view.adjustment
    return "" if adjustment is None else f"{adjustment.amount} {adjustment.currency}"


def _credited(account_id: str, amount: str, currency: str) -> dict[str, JsonValue]:
    """The account the adjustment credits and by how much: the customer account for a
    positive amount, @funding for a negative one."""
    if amount.startswith("-"):
        return {
            "account_id": funding_account_id(currency),
            "amount": amount[1:],
            "currency": currency,
        }
    return {"account_id": account_id, "amount": amount, "currency": currency}
