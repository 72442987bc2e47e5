"""The workflow side of the audit trail: what each record says, written before the saga moves on."""

from __future__ import annotations

from pydantic import JsonValue
from temporalio import workflow

from sagas.engine._audit_call import (
    AUDIT_ACTIVITY,
    AUDIT_RETRY,
    AUDIT_TIMEOUT,
    AuditCall,
    AuditKind,
)
from sagas.engine._outcome import SagaOutcome
from sagas.engine._snapshot import Snapshot
from sagas.engine._workflow_util import uncancellable
from sagas.foundations import canonical_json, sha256_hex

AUDIT_COMPLETED_MEMO = "audit_completed"
"""Memo flag set by the launcher: also record sagas that complete."""


def snapshot_hash(snapshot: Snapshot) -> str:
    return sha256_hex(canonical_json(snapshot.model_dump(mode="json")))


def outcome_payload(
    outcome: SagaOutcome, request: JsonValue, snapshots: list[Snapshot]
) -> dict[str, JsonValue]:
    """Everything an auditor needs to judge how the saga ended."""
    failure = outcome.failure
    started = workflow.info().start_time
    ended = workflow.now()
    return {
        "saga_id": outcome.saga_id,
        "saga_type": outcome.saga_type,
        "run_id": workflow.info().run_id,
        "status": outcome.status.value,
        "input": request,
        "failed_step": failure.step_name if failure else None,
        "failed_field": failure.field if failure else None,
        "reason": failure.reason if failure else None,
        "error_class": failure.error_type if failure else None,
        "error_message": failure.message if failure else None,
        "attempts": failure.attempts if failure else None,
        "compensations": [c.model_dump(mode="json") for c in outcome.compensations],
        "operator_actions": [a.model_dump(mode="json") for a in outcome.operator_actions],
        "pivot": outcome.pivot,
        "pivot_passed": outcome.pivot_passed,
        "ignored_stops": [s.model_dump(mode="json") for s in outcome.ignored_stops],
        "inquiries": [i.model_dump(mode="json") for i in outcome.inquiries],
        "snapshot_hashes": [snapshot_hash(s) for s in snapshots],
        "started_at": started.isoformat(),
        "ended_at": ended.isoformat(),
        "duration_ms": int((ended - started).total_seconds() * 1000),
    }


async def write_audit_record(
    kind: AuditKind, saga_id: str, saga_type: str, dedupe_key: str, payload: dict[str, JsonValue]
) -> None:
    """Append one record, retrying until it is durable; a cancel cannot interrupt it."""
    call = AuditCall(
        kind=kind, saga_id=saga_id, saga_type=saga_type, dedupe_key=dedupe_key, payload=payload
    )
    await uncancellable(
        workflow.execute_activity(
            AUDIT_ACTIVITY,
            call,
            start_to_close_timeout=AUDIT_TIMEOUT,
            retry_policy=AUDIT_RETRY,
            summary=f"audit: {kind} record of {saga_id}",
        )
    )


def audit_completed_sagas() -> bool:
    flag: bool = workflow.memo_value(AUDIT_COMPLETED_MEMO, False, type_hint=bool)
    return flag
