"""Temporal workflow definitions: deterministic orchestration only."""

from workflows.audit import AuditAnchorWorkflow
from workflows.batches import PayoutBatchWorkflow
from workflows.fees import FeeCollectionWorkflow
from workflows.fx import FxTransferWorkflow
from workflows.operator_actions import FundingWorkflow, OperatorActionWorkflow
from workflows.payouts import ExternalPayoutWorkflow
from workflows.reconcile import BreakResolutionWorkflow
from workflows.recovery import SagaRecoveryWorkflow
from workflows.schedules import ScheduleAuditWorkflow, ScheduledSagaWorkflow
from workflows.statements import StatementActionWorkflow
from workflows.sweep import EodSweepWorkflow
from workflows.transfer import TransferLocalStepsWorkflow, TransferWorkflow

ALL_WORKFLOWS = [
    TransferWorkflow,
    TransferLocalStepsWorkflow,
    FeeCollectionWorkflow,
    ExternalPayoutWorkflow,
    FxTransferWorkflow,
    PayoutBatchWorkflow,
    EodSweepWorkflow,
]
"""The built-in saga types' workflows, each with recorded histories (sagas.testing)."""

__all__ = [
    "ALL_WORKFLOWS",
    "AuditAnchorWorkflow",
    "BreakResolutionWorkflow",
    "EodSweepWorkflow",
    "ExternalPayoutWorkflow",
    "FeeCollectionWorkflow",
    "FundingWorkflow",
    "FxTransferWorkflow",
    "OperatorActionWorkflow",
    "PayoutBatchWorkflow",
    "SagaRecoveryWorkflow",
    "ScheduleAuditWorkflow",
    "ScheduledSagaWorkflow",
    "StatementActionWorkflow",
    "TransferLocalStepsWorkflow",
    "TransferWorkflow",
]
