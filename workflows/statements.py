"""Reconciliation as one verified operator's action on the worker: a statement imported (the
file travels in the request), matching run, a break explained. The worker checks the
operator's proof first, then its activity writes the rows, stamped with this workflow's id,
under the deployment's rules, and the record it writes counts what they add up to. A dry run
of an import or a run does the same in a transaction its activity rolls back, and records
nothing."""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import JsonValue

    from sagas.engine import OperatorRole
    from sagas.reconcile import (
        DRY_RUN_ACTIVITY,
        EXPLAIN_BREAK_ACTIVITY,
        IMPORT_STATEMENT_ACTIVITY,
        RECONCILE_RUN_ACTIVITY,
        STATEMENT_ACTION_WORKFLOW,
        StatementAct,
        StatementActionRequest,
        StatementCall,
        StatementOutcome,
    )
    from workflows.operator_actions import LEDGER_RETRY, VerifiedFirst, record_by

STATEMENT_TIMEOUT = timedelta(minutes=5)
"""A statement at the size limits is read, kept and matched well within this."""
_ACTIVITIES = {
    StatementAct.IMPORT: IMPORT_STATEMENT_ACTIVITY,
    StatementAct.RUN: RECONCILE_RUN_ACTIVITY,
    StatementAct.EXPLAIN: EXPLAIN_BREAK_ACTIVITY,
}
_SUBJECTS = {
    StatementAct.IMPORT: "statement",
    StatementAct.RUN: "reconciliation",
    StatementAct.EXPLAIN: "break",
}


@workflow.defn(name=STATEMENT_ACTION_WORKFLOW)
class StatementActionWorkflow(VerifiedFirst):
    @workflow.run
    async def run(self, request: StatementActionRequest) -> StatementOutcome:
        operator = await self._verify(
            request.proof,
            OperatorRole.OPERATOR,
            request.act.binding(request.dry_run),
            request.refusal(),
        )
        if operator is None:
            return StatementOutcome(refused_type="OperatorRefusedError", refused=self._refusal)
        action_id = workflow.info().workflow_id
        call = StatementCall(
            action_id=action_id,
            operator=operator.name,
            upload=request.upload,
            break_id=request.break_id,
            note=request.note,
            evidence=request.evidence,
        )
        activity, summary = _ACTIVITIES[request.act], f"{request.act} as {operator.name}"
        if request.dry_run:
            activity, summary = DRY_RUN_ACTIVITY, f"{summary}, dry run"
        try:
            facts: dict[str, JsonValue] = await workflow.execute_activity(
                activity,
                call,
                result_type=dict,
                start_to_close_timeout=STATEMENT_TIMEOUT,
                retry_policy=LEDGER_RETRY,
                summary=summary,
            )
        except ActivityError as err:
            cause = err.cause
            if not isinstance(cause, ApplicationError):
                raise
            # Refused (a bad file, a limit, a closed break): nothing was written, nothing to record.
            return StatementOutcome(refused_type=cause.type, refused=cause.message)
        facts["note"] = request.note
        if request.dry_run:  # nothing was written: nothing to record
            return StatementOutcome(facts=facts)
        await record_by(request.act.audit_kind, action_id, _SUBJECTS[request.act], facts, operator)
        return StatementOutcome(facts=facts)
