"""Temporal workflow definitions: deterministic orchestration only."""

from workflows.transfer import TransferWorkflow

ALL_WORKFLOWS = [TransferWorkflow]

__all__ = ["ALL_WORKFLOWS", "TransferWorkflow"]
