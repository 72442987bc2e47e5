"""`python -m sagas.testing record MODULE:SCENARIO DIRECTORY [--address HOST:PORT | --port P
[--http-port P] [--metrics-port P]]`: record one saga type's histories.

Only a deliberate workflow change warrants it (docs/determinism.md). Starts its own dev server
(on free ports unless given) or uses the one at `--address` (fundsaga's search attributes
registered, as `fundsaga dev`'s are), and writes one history per workflow type and outcome of
that type, and nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from pathlib import Path
from typing import NoReturn

from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas.client import end_process
from sagas.codec import converter_for
from sagas.testing._replay import ReplayGuard, ServerPorts
from sagas.testing._scenario import SagaScenario


def _scenario(target: str) -> SagaScenario:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise SystemExit(f"scenario: {target!r} is not MODULE:NAME")
    found = getattr(importlib.import_module(module_name), attribute, None)
    if not isinstance(found, SagaScenario):
        raise SystemExit(f"scenario: {target} is not a SagaScenario")
    return found


def main(argv: list[str]) -> NoReturn:
    parser = argparse.ArgumentParser(prog="python -m sagas.testing")
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("record", help="record one saga type's replay histories")
    record.add_argument("scenario", help="MODULE:NAME of a SagaScenario")
    record.add_argument("directory", type=Path, help="where its histories live")
    record.add_argument("--address", help="HOST:PORT of a running dev server to record on")
    for flag, what in (
        ("--port", "its own dev server's gRPC port"),
        ("--http-port", "its own dev server's HTTP API port"),
        ("--metrics-port", "its own dev server's /metrics port"),
    ):
        record.add_argument(flag, type=int, default=None, help=f"{what} (default: a free one)")
    args = parser.parse_args(argv)
    ports = ServerPorts(args.port, args.http_port, args.metrics_port)
    # The recordings inject the faults that fail steps: the SDK's warning for each is noise.
    logging.getLogger("temporalio.activity").setLevel(logging.ERROR)
    guard = ReplayGuard(_scenario(args.scenario), args.directory)
    for path in asyncio.run(_record(guard, args.address, ports)):
        print(f"recorded {path}")
    end_process(0)  # no interpreter teardown: the SDK's runtime may abort it


async def _record(guard: ReplayGuard, address: str | None, ports: ServerPorts) -> list[Path]:
    if address is None:
        return await guard.record(ports=ports)
    client = await Client.connect(address, data_converter=converter_for(None))
    return await guard.record(WorkflowEnvironment.from_client(client))


if __name__ == "__main__":
    main(sys.argv[1:])
