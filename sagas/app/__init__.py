"""The application around the engine: the client for services, the worker, the CLI."""

import sys

from sagas.app._cli import main as _main
from sagas.app._client import FundsagaClient, connect_temporal, transfer_workflow_id
from sagas.app._devserver import start_dev_server, temporal_cli_path
from sagas.app._worker import build_worker


def main() -> None:
    sys.exit(_main())


__all__ = [
    "FundsagaClient",
    "build_worker",
    "connect_temporal",
    "main",
    "start_dev_server",
    "temporal_cli_path",
    "transfer_workflow_id",
]
