"""fundsaga: saga orchestration for money movements on Temporal."""

from sagas._currency import Currency, currency
from sagas._definition import (
    ACTION,
    COMPENSATION,
    SagaDefinition,
    SagaRequest,
    StepCall,
    StepDefinition,
)
from sagas._errors import (
    NON_RETRYABLE_ERROR_TYPES,
    AccountClosedError,
    AccountFrozenError,
    BusinessError,
    ConnectionDroppedError,
    CurrencyMismatchError,
    DatabaseBusyError,
    DeadlockError,
    FundsagaError,
    IdempotencyConflictError,
    InsufficientFundsError,
    InvalidRequestError,
    LimitExceededError,
    NotParkedError,
    SagaNotFoundError,
    SerializationFailureError,
    StepTimeoutError,
    TransientError,
    UnknownAccountError,
    error_class_by_name,
)
from sagas._faults import ENV_VAR as FAULTS_ENV_VAR
from sagas._faults import FaultKind, FaultPlan, FaultRule, parse_faults
from sagas._money import MAX_MINOR_UNITS, Money, parse_money
from sagas._outcome import CompensationOutcome, OperatorAction, SagaOutcome, SagaView, StepFailure
from sagas._retry import RetrySpec, retry_spec
from sagas._runtime import LEAN_HISTORY_PATCH
from sagas._settings import Settings, load_settings
from sagas._snapshot import CompensationEntry, Snapshot
from sagas._status import SagaStatus
from sagas._step_guard import SnapshotStore, step_guard
from sagas._workflow_base import RESOLVE_UPDATE, RETRY_UPDATE, STATE_QUERY, SagaWorkflow

__all__ = [
    "ACTION",
    "COMPENSATION",
    "FAULTS_ENV_VAR",
    "LEAN_HISTORY_PATCH",
    "MAX_MINOR_UNITS",
    "NON_RETRYABLE_ERROR_TYPES",
    "RESOLVE_UPDATE",
    "RETRY_UPDATE",
    "STATE_QUERY",
    "AccountClosedError",
    "AccountFrozenError",
    "BusinessError",
    "CompensationEntry",
    "CompensationOutcome",
    "ConnectionDroppedError",
    "Currency",
    "CurrencyMismatchError",
    "DatabaseBusyError",
    "DeadlockError",
    "FaultKind",
    "FaultPlan",
    "FaultRule",
    "FundsagaError",
    "IdempotencyConflictError",
    "InsufficientFundsError",
    "InvalidRequestError",
    "LimitExceededError",
    "Money",
    "NotParkedError",
    "OperatorAction",
    "RetrySpec",
    "SagaDefinition",
    "SagaNotFoundError",
    "SagaOutcome",
    "SagaRequest",
    "SagaStatus",
    "SagaView",
    "SagaWorkflow",
    "SerializationFailureError",
    "Settings",
    "Snapshot",
    "SnapshotStore",
    "StepCall",
    "StepDefinition",
    "StepFailure",
    "StepTimeoutError",
    "TransientError",
    "UnknownAccountError",
    "currency",
    "error_class_by_name",
    "load_settings",
    "parse_faults",
    "parse_money",
    "retry_spec",
    "step_guard",
]
