"""The `fundsaga` command. Exit codes: 0 ok, 1 findings or failure, 2 usage or bad input."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from sagas.app import (
    _cli_accounts,
    _cli_attention,
    _cli_audit,
    _cli_dev,
    _cli_ledger,
    _cli_transfers,
)
from sagas.app._migrate import databases_to_migrate
from sagas.foundations import (
    FundsagaError,
    InvalidRequestError,
    Settings,
    load_settings,
    upgrade_database,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fundsaga", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _cli_dev.add_parsers(commands)
    db = commands.add_parser("db", help="database")
    db.add_subparsers(dest="action", required=True).add_parser("upgrade", help="migrate to head")
    _cli_accounts.add_parser(commands)
    _cli_transfers.add_parser(commands)
    _cli_attention.add_parser(commands)
    _cli_audit.add_parser(commands)
    _cli_ledger.add_parser(commands)
    return parser


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "dev":
        return asyncio.run(_cli_dev.run_dev(args, settings))
    if args.command == "worker":
        return asyncio.run(_cli_dev.run_worker(settings))
    if args.command == "db":
        for url in databases_to_migrate(settings):
            upgrade_database(url)
            print(f"database at head: {url}")
        return 0
    if args.command == "accounts":
        return _cli_accounts.run(args, settings)
    if args.command == "attention":
        return asyncio.run(_cli_attention.run(args, settings))
    if args.command == "ledger":
        return _cli_ledger.run(args, settings)
    if args.command == "audit":
        return asyncio.run(_cli_audit.run(args, settings))
    return asyncio.run(_cli_transfers.run(args, settings))


def run_cli(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args, load_settings())
    except InvalidRequestError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except FundsagaError as err:
        print(f"error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
