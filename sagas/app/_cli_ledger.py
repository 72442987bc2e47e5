"""`fundsaga ledger verify`: the journal chain and its anchors, and every entry, balance and
hold against its postings."""

from __future__ import annotations

import argparse
from typing import Any

from sagas.app._audit_keys import open_audit, verifier_keys
from sagas.app._ledger_verify import LedgerVerdict, verify_ledger
from sagas.app._output import print_json
from sagas.foundations import Settings
from sagas.ledger import Ledger


def add_parser(commands: Any) -> None:
    ledger = commands.add_parser("ledger", help="the double-entry ledger")
    sub = ledger.add_subparsers(dest="action", required=True)
    verify = sub.add_parser(
        "verify",
        help="journal chain and anchors, entries, balances and holds; exit 1 on a finding",
    )
    verify.add_argument("--output", choices=("table", "json"), default="table")


def run(args: argparse.Namespace, settings: Settings) -> int:
    verdict = ledger_verdict(settings)
    if args.output == "json":
        print_json(
            {
                "ok": verdict.ok,
                "entries": verdict.entries,
                "head_hash": verdict.head.entry_hash,
                "anchored_at": verdict.anchored_at,
                "findings": verdict.findings,
            }
        )
    elif verdict.findings:
        print(f"ledger BROKEN: {verdict.findings[0]}")
        for finding in verdict.findings[1:]:
            print(f"  also: {finding}")
    else:
        anchored = (
            f"anchored at entry {verdict.anchored_at}"
            if verdict.anchored_at is not None
            else "no anchor yet"
        )
        print(
            f"ledger intact: {verdict.entries} entries chained, {anchored}; each balanced per "
            "currency; every balance and hold matches its postings"
        )
    return 0 if verdict.ok else 1


def ledger_verdict(settings: Settings) -> LedgerVerdict:
    """The configured ledger verified against the configured anchor store."""
    keys = verifier_keys(settings)
    ledger = Ledger.from_url(settings.database_url)
    audit = open_audit(settings, keys)
    try:
        return verify_ledger(ledger, audit.anchors, keys.keyring)
    finally:
        ledger.close_connections()
        audit.close_connections()
