"""`fundsaga ledger verify`: every entry balances, every balance and hold matches its postings."""

from __future__ import annotations

import argparse
from typing import Any

from sagas.app._output import print_json
from sagas.foundations import Settings
from sagas.ledger import Ledger


def add_parser(commands: Any) -> None:
    ledger = commands.add_parser("ledger", help="the double-entry ledger")
    sub = ledger.add_subparsers(dest="action", required=True)
    verify = sub.add_parser(
        "verify", help="entries balance, balances and holds match postings; exit 1 on a finding"
    )
    verify.add_argument("--output", choices=("table", "json"), default="table")


def run(args: argparse.Namespace, settings: Settings) -> int:
    ledger = Ledger.from_url(settings.database_url)
    try:
        findings = ledger.check_invariants()
        entries = len(ledger.entries())
    finally:
        ledger.close_connections()
    if args.output == "json":
        print_json({"ok": not findings, "entries": entries, "findings": findings})
    elif findings:
        print(f"ledger BROKEN: {findings[0]}")
        for finding in findings[1:]:
            print(f"  also: {finding}")
    else:
        print(
            f"ledger intact: {entries} entries, each balanced per currency; every balance and "
            "hold matches its postings"
        )
    return 1 if findings else 0
