"""The saga engine: definitions, the runtime loop, step execution, snapshots, audit-trail calls."""

from sagas.engine._audit_call import (
    ANCHOR_ACTIVITY,
    AUDIT_ACTIVITY,
    AUDIT_RETRY,
    AUDIT_TIMEOUT,
    AuditCall,
    AuditKind,
    AuditReceipt,
)
from sagas.engine._audit_trail import AUDIT_COMPLETED_MEMO
from sagas.engine._definition import (
    Phase,
    SagaDefinition,
    SagaRequest,
    StepCall,
    StepDefinition,
)
from sagas.engine._duration import format_duration, parse_duration
from sagas.engine._events import EVENT_SIGNAL, EventRecord, EventWait, SagaEvent
from sagas.engine._faults import ENV_VAR as FAULTS_ENV_VAR
from sagas.engine._faults import FaultKind, FaultPlan, FaultRule, parse_faults
from sagas.engine._inquiry import Inquiry, InquiryAnswer, InquiryRecord, asking_first
from sagas.engine._outcome import (
    CompensationOutcome,
    CompensationResult,
    FailureReason,
    OperatorAction,
    OperatorDecision,
    SagaCompensatedError,
    SagaNotCompletedError,
    SagaOutcome,
    SagaRejectedError,
    SagaResolvedError,
    SagaView,
    StepFailure,
    completed_or_raise,
)
from sagas.engine._retry import DEFAULT_INSTANT, MAX_WAIT, Jitter, RetrySpec, retry_spec
from sagas.engine._retry_delay import NextRetry, jitter_seed, next_retry, retry_delay
from sagas.engine._retry_plan import (
    DEFAULT_DEADLINE,
    PRESETS,
    PlannedRetry,
    Preset,
    retry_plan,
    spec_advice,
    total_backoff,
)
from sagas.engine._retry_specs import (
    RETRY_SPECS_ACTIVITY,
    RetrySpecsCall,
    check_saga_types,
    code_specs,
    overlay,
    read_retry_specs,
)
from sagas.engine._saga_retry_specs import SagaRetrySpecs, StepRetrySpecs
from sagas.engine._search_attributes import ALL_KEYS as SEARCH_ATTRIBUTE_KEYS
from sagas.engine._search_attributes import SAGA_STATUS, SAGA_TYPE
from sagas.engine._snapshot import CompensationEntry, RunClaim, Snapshot
from sagas.engine._status import SagaStatus
from sagas.engine._step_guard import SnapshotStore, step_guard, to_application_error
from sagas.engine._workflow_base import (
    APPROVE_UPDATE,
    PROPOSE_UPDATE,
    RETRY_UPDATE,
    VIEW_QUERY,
    SagaWorkflow,
)

__all__ = [
    "ANCHOR_ACTIVITY",
    "APPROVE_UPDATE",
    "AUDIT_ACTIVITY",
    "AUDIT_COMPLETED_MEMO",
    "AUDIT_RETRY",
    "AUDIT_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_INSTANT",
    "EVENT_SIGNAL",
    "FAULTS_ENV_VAR",
    "MAX_WAIT",
    "PRESETS",
    "PROPOSE_UPDATE",
    "RETRY_SPECS_ACTIVITY",
    "RETRY_UPDATE",
    "SAGA_STATUS",
    "SAGA_TYPE",
    "SEARCH_ATTRIBUTE_KEYS",
    "VIEW_QUERY",
    "AuditCall",
    "AuditKind",
    "AuditReceipt",
    "CompensationEntry",
    "CompensationOutcome",
    "CompensationResult",
    "EventRecord",
    "EventWait",
    "FailureReason",
    "FaultKind",
    "FaultPlan",
    "FaultRule",
    "Inquiry",
    "InquiryAnswer",
    "InquiryRecord",
    "Jitter",
    "NextRetry",
    "OperatorAction",
    "OperatorDecision",
    "Phase",
    "PlannedRetry",
    "Preset",
    "RetrySpec",
    "RetrySpecsCall",
    "RunClaim",
    "SagaCompensatedError",
    "SagaDefinition",
    "SagaEvent",
    "SagaNotCompletedError",
    "SagaOutcome",
    "SagaRejectedError",
    "SagaRequest",
    "SagaResolvedError",
    "SagaRetrySpecs",
    "SagaStatus",
    "SagaView",
    "SagaWorkflow",
    "Snapshot",
    "SnapshotStore",
    "StepCall",
    "StepDefinition",
    "StepFailure",
    "StepRetrySpecs",
    "asking_first",
    "check_saga_types",
    "code_specs",
    "completed_or_raise",
    "format_duration",
    "jitter_seed",
    "next_retry",
    "overlay",
    "parse_duration",
    "parse_faults",
    "read_retry_specs",
    "retry_delay",
    "retry_plan",
    "retry_spec",
    "spec_advice",
    "step_guard",
    "to_application_error",
    "total_backoff",
]
