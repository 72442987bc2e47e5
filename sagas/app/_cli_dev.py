"""`fundsaga dev` and `fundsaga worker`: the embedded stack and a standalone worker."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from contextlib import AsyncExitStack
from datetime import timedelta
from typing import Any

from temporalio.client import Client

from activities.audit import anchor_journal
from sagas.app._anchor_schedule import ensure_anchor_schedule
from sagas.app._audit_keys import anchor_head, open_audit, writer_keys
from sagas.app._client import FundsagaClient, connect_temporal
from sagas.app._demo import DEMO_FAULTS, run_demo
from sagas.app._devserver import start_dev_server
from sagas.app._migrate import databases_to_migrate
from sagas.app._registry import load_registry
from sagas.app._worker import build_worker
from sagas.engine import parse_faults
from sagas.foundations import DEFAULT_HOME, InvalidRequestError, Settings, upgrade_database
from sagas.ledger import Ledger


def add_parsers(commands: Any) -> None:
    dev = commands.add_parser("dev", help="dev server with UI + migrated SQLite + worker")
    dev.add_argument("--demo", action="store_true", help="run three demo transfers")
    dev.add_argument(
        "--no-worker",
        action="store_true",
        help="no built-in worker: run your own (`fundsaga worker` or build_worker) against it",
    )
    dev.add_argument("--port", type=int, default=7233)
    dev.add_argument("--ui-port", type=int, default=8233)
    commands.add_parser("worker", help="run a worker against TEMPORAL_ADDRESS")


async def run_dev(args: argparse.Namespace, settings: Settings) -> int:
    for url in databases_to_migrate(settings):
        upgrade_database(url)
    faults_spec = ";".join(s for s in (settings.faults, DEMO_FAULTS if args.demo else "") if s)
    keys = writer_keys(settings, make_dev_key=True)
    ledger = Ledger.from_url(settings.database_url, signer=keys.require_signer())
    ui_url = f"http://localhost:{args.ui_port}"
    print(f"starting Temporal dev server on 127.0.0.1:{args.port} (Web UI {ui_url}) ...")
    env = await start_dev_server(
        port=args.port, ui_port=args.ui_port, database_file=DEFAULT_HOME / "temporal.db"
    )
    if args.no_worker and args.demo:
        raise InvalidRequestError("--demo", "needs the built-in worker: drop --no-worker")
    registry = load_registry(settings.saga_module_names)
    audit = open_audit(settings, keys)
    async with env, AsyncExitStack() as stack:
        if args.no_worker:
            print(f"no worker started; start one on task queue {settings.task_queue!r}")
        else:
            await stack.enter_async_context(
                build_worker(
                    env.client,
                    settings.task_queue,
                    ledger,
                    audit,
                    parse_faults(faults_spec),
                    registry=registry,
                )
            )
            print(
                f"worker running saga types {', '.join(registry.names())} on task queue "
                f"{settings.task_queue!r}; ledger {settings.database_url}"
            )
            await schedule_anchors(env.client, settings)
        if args.demo:
            # The demo's failures are on purpose; their stack traces would bury the summary.
            logging.getLogger("temporalio.activity").setLevel(logging.ERROR)
            print("demo transfers:")
            await run_demo(FundsagaClient.configured(env.client, settings, ledger), ui_url)
            anchored = anchor_head(audit)
            if anchored is not None:
                print(f"audit chain anchored at record {anchored.sequence}")
            journal = anchor_journal(ledger, audit.anchors)
            if journal is not None:
                print(f"ledger journal anchored at entry {journal.sequence}")
        print(f"open {ui_url} to read the histories; Ctrl-C stops everything")
        await until_stopped()
    return 0


async def run_worker(settings: Settings) -> int:
    client = await connect_temporal(settings)
    keys = writer_keys(settings)
    ledger = Ledger.from_url(settings.database_url, signer=keys.require_signer())
    store = open_audit(settings, keys)
    faults = parse_faults(settings.faults)
    registry = load_registry(settings.saga_module_names)
    async with build_worker(client, settings.task_queue, ledger, store, faults, registry=registry):
        print(
            f"worker running saga types {', '.join(registry.names())} on "
            f"{settings.temporal_address}, task queue {settings.task_queue!r}"
        )
        await schedule_anchors(client, settings)
        await until_stopped()
    return 0


async def schedule_anchors(temporal: Client, settings: Settings) -> None:
    if settings.audit_anchor_minutes:
        every = timedelta(minutes=settings.audit_anchor_minutes)
        await ensure_anchor_schedule(temporal, settings.task_queue, every)


async def until_stopped() -> None:
    """Wait for Ctrl-C or SIGTERM, so the caller's context managers shut everything down."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    print("stopping ...")
