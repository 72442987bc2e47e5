"""`fundsaga accounts ...`: open, list, show, freeze and close ledger accounts."""

from __future__ import annotations

import argparse
from typing import Any

from sagas.app._audit_keys import writer_keys
from sagas.app._output import print_json, print_table
from sagas.foundations import Settings, parse_money
from sagas.ledger import AccountView, Ledger


def add_parser(commands: Any) -> None:
    accounts = commands.add_parser("accounts", help="ledger accounts")
    sub = accounts.add_subparsers(dest="action", required=True)
    create = sub.add_parser("create", help="open an account")
    create.add_argument("account_id", metavar="ID")
    create.add_argument("--currency", required=True)
    create.add_argument("--opening-balance", metavar="AMOUNT")
    create.add_argument("--overdraft", metavar="AMOUNT")
    listing = sub.add_parser("list", help="every customer account")
    listing.add_argument("--all", action="store_true", help="include @funding/@clearing")
    show = sub.add_parser("show", help="one account")
    show.add_argument("account_id", metavar="ID")
    for name in ("freeze", "unfreeze", "close"):
        sub.add_parser(name, help=f"{name} an account").add_argument("account_id", metavar="ID")
    for parser in (create, listing, show):
        parser.add_argument("--output", choices=("table", "json"), default="table")


def account_json(view: AccountView) -> dict[str, Any]:
    return {
        "account_id": view.account_id,
        "currency": view.currency,
        "status": view.status.value,
        "balance": view.balance.amount_text(),
        "held": view.held.amount_text(),
        "available": view.available.amount_text(),
        "overdraft": view.overdraft.amount_text(),
    }


def show_accounts(views: list[AccountView], output: str) -> None:
    rows = [account_json(v) for v in views]
    if output == "json":
        print_json(rows if len(rows) != 1 else rows[0])
        return
    headers = ["account_id", "currency", "status", "balance", "held", "available", "overdraft"]
    print_table(headers, [[row[h] for h in headers] for row in rows])


def run(args: argparse.Namespace, settings: Settings) -> int:
    # An opening balance is a journal entry, and every entry carries the writer's signature.
    signer = writer_keys(settings).require_signer() if args.action == "create" else None
    ledger = Ledger.from_url(settings.database_url, signer=signer)
    try:
        _apply(args, ledger)
    finally:
        ledger.close_connections()
    return 0


def _apply(args: argparse.Namespace, ledger: Ledger) -> None:
    output = getattr(args, "output", "table")
    if args.action == "create":
        code = args.currency
        opening = args.opening_balance
        overdraft = args.overdraft
        view = ledger.open_account(
            args.account_id,
            code,
            opening_balance=parse_money(opening, code, field="opening_balance", allow_zero=True)
            if opening
            else None,
            overdraft=parse_money(overdraft, code, field="overdraft", allow_zero=True)
            if overdraft
            else None,
        )
        show_accounts([view], output)
    elif args.action == "list":
        show_accounts(ledger.accounts(include_system=args.all), output)
    elif args.action == "show":
        show_accounts([ledger.account(args.account_id)], output)
    else:
        change = {
            "freeze": ledger.freeze,
            "unfreeze": ledger.unfreeze,
            "close": ledger.close_account,
        }
        show_accounts([change[args.action](args.account_id)], "table")
