"""Temporal workflow definitions: deterministic orchestration only."""

from workflows.audit import AuditAnchorWorkflow
from workflows.transfer import TransferLocalStepsWorkflow, TransferWorkflow

ALL_WORKFLOWS = [TransferWorkflow, TransferLocalStepsWorkflow]
"""The saga workflows: every one has recorded histories (tests/replay)."""

__all__ = ["ALL_WORKFLOWS", "AuditAnchorWorkflow", "TransferLocalStepsWorkflow", "TransferWorkflow"]
