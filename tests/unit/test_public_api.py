"""The public surface of each package changes on purpose only: update these lists with it."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "sagas": [
        "ACTION",
        "AccountClosedError",
        "AccountFrozenError",
        "BusinessError",
        "COMPENSATION",
        "CompensationEntry",
        "CompensationOutcome",
        "ConnectionDroppedError",
        "Currency",
        "CurrencyMismatchError",
        "DatabaseBusyError",
        "DeadlockError",
        "FAULTS_ENV_VAR",
        "FaultKind",
        "FaultPlan",
        "FaultRule",
        "FundsagaError",
        "IdempotencyConflictError",
        "InsufficientFundsError",
        "InvalidRequestError",
        "LEAN_HISTORY_PATCH",
        "LimitExceededError",
        "MAX_MINOR_UNITS",
        "Money",
        "NON_RETRYABLE_ERROR_TYPES",
        "NotParkedError",
        "OperatorAction",
        "RESOLVE_UPDATE",
        "RETRY_UPDATE",
        "RetrySpec",
        "STATE_QUERY",
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
    ],
    "sagas.app": [
        "FundsagaClient",
        "TRANSFER_WORKFLOW_BY_STEP_MODE",
        "build_worker",
        "connect_temporal",
        "main",
        "run_cli",
        "saga_workflow_runner",
        "start_dev_server",
        "temporal_cli_path",
        "transfer_workflow_id",
    ],
    "sagas.transfer": [
        "ACTION_RETRY",
        "COMPENSATION_RETRY",
        "TRANSFER_SAGA",
        "TransferCall",
        "TransferRequest",
        "TransferState",
        "clearing_account",
    ],
    "sagas.chaos": [
        "ChaosConfig",
        "ChaosPlan",
        "ChaosReport",
        "ChaosRun",
        "Check",
        "check_run",
        "make_plan",
        "render",
    ],
    "workflows": ["ALL_WORKFLOWS", "TransferLocalStepsWorkflow", "TransferWorkflow"],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_are_pinned(module: str) -> None:
    package = importlib.import_module(module)

    assert sorted(package.__all__) == sorted(PUBLIC[module])
    assert all(hasattr(package, name) for name in package.__all__)
