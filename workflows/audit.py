"""The audit anchor workflow: started by the deployment's one anchor schedule, never by hand."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from sagas.engine import ANCHOR_ACTIVITY, AUDIT_RETRY, AUDIT_TIMEOUT


@workflow.defn(name="AuditAnchorWorkflow")
class AuditAnchorWorkflow:
    """Anchors the audit chain at its head, through the worker that holds the signing key."""

    @workflow.run
    async def run(self) -> int | None:
        anchored: int | None = await workflow.execute_activity(
            ANCHOR_ACTIVITY,
            start_to_close_timeout=AUDIT_TIMEOUT,
            retry_policy=AUDIT_RETRY,
            summary="anchor the audit chain at its head",
        )
        return anchored
