"""The application around the engine: the client for services, the worker, the CLI."""

import sys

from sagas.app._cli import run_cli
from sagas.app._client import (
    TRANSFER_WORKFLOW_BY_STEP_MODE,
    FundsagaClient,
    connect_temporal,
    transfer_workflow_id,
)
from sagas.app._devserver import start_dev_server, temporal_cli_path
from sagas.app._worker import build_worker, saga_workflow_runner


def main() -> None:
    sys.exit(run_cli())


__all__ = [
    "TRANSFER_WORKFLOW_BY_STEP_MODE",
    "FundsagaClient",
    "build_worker",
    "connect_temporal",
    "main",
    "run_cli",
    "saga_workflow_runner",
    "start_dev_server",
    "temporal_cli_path",
    "transfer_workflow_id",
]
