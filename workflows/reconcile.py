"""Resolving a reconciliation break: one verified operator proposes, another approves, then
the worker closes the break (posting the adjustment, if any) and the record names both."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import JsonValue

    from sagas.engine import (
        APPROVE_RESOLUTION_UPDATE,
        BREAK_RESOLUTION_WORKFLOW,
        FUNDING_WAIT,
        RESOLUTION_VIEW_QUERY,
        RESOLVE_BREAK_ACTIVITY,
        AuditKind,
        BreakResolutionCall,
        BreakResolutionRequest,
        FundingStatus,
        OperatorAct,
        OperatorRole,
        ResolutionApproval,
        ResolutionView,
        VerifiedOperator,
        resolution_proposal,
    )
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

    @workflow.run
    async def run(self, request: BreakResolutionRequest) -> ResolutionView:
        view = self._view = ResolutionView(
            resolution_id=workflow.info().workflow_id,
            break_id=request.break_id,
            note=request.note,
            adjustment=request.adjustment,
            status=FundingStatus.AWAITING_APPROVAL,
        )
        maker = await self._verify(request.proof, OperatorRole.OPERATOR, OperatorAct.PROPOSE)
        if maker is None:
            view.status = FundingStatus.REFUSED
            return view
        view.proposed_by = maker
        facts = self._facts()
        await self._record(AuditKind.BREAK_RESOLUTION_PROPOSED, facts, maker)
        if not await until(lambda: view.approved_by is not None, FUNDING_WAIT):
            view.status = FundingStatus.EXPIRED
            await self._record(AuditKind.BREAK_RESOLUTION_EXPIRED, facts, None)
            return view
        assert view.approved_by is not None
        call = BreakResolutionCall(
            break_id=request.break_id,
            resolved_by=f"{maker.name} (proposed), {view.approved_by.name} (approved)",
            adjustment=request.adjustment,
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
        resolved = self._facts() | {"entry_id": view.entry_id}
        await self._record(AuditKind.BREAK_RESOLVED, resolved, view.approved_by)
        return view

    @workflow.query(name=RESOLUTION_VIEW_QUERY)
    def view(self) -> ResolutionView | None:
        return self._view

    @workflow.update(name=APPROVE_RESOLUTION_UPDATE)
    async def approve(self, approval: ResolutionApproval) -> ResolutionView:
        """Approve, as an operator with the approver role other than the proposer; returns the
        view once the break is resolved."""
        view = self._view
        await approve_proposal(view, approval.proof, self._proposal(), self._spent, "resolution")
        assert view is not None
        return view

    @approve.validator
    def _validate_approve(self, approval: ResolutionApproval) -> None:
        validate_approval(self._view, approval.proof, self._proposal(), self._spent, "resolution")

    def _proposal(self) -> str:
        return resolution_proposal(self._view) if self._view is not None else ""

    def _facts(self) -> dict[str, JsonValue]:
        """What the records say: the break, the note and the adjustment as the funding
        witness reads it (the account credited and the amount)."""
        view = self._view
        assert view is not None
        facts: dict[str, JsonValue] = {"break_id": view.break_id, "note": view.note}
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
