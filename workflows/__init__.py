"""Temporal workflow definitions: deterministic orchestration only."""

from workflows.transfer import TransferLocalStepsWorkflow, TransferWorkflow

ALL_WORKFLOWS = [TransferWorkflow, TransferLocalStepsWorkflow]

__all__ = ["ALL_WORKFLOWS", "TransferLocalStepsWorkflow", "TransferWorkflow"]
