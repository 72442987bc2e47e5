"""`fundsaga attention ...`: sagas parked in NEEDS_ATTENTION, and the operator's two actions."""

from __future__ import annotations

import argparse
from typing import Any

from sagas.app._client import FundsagaClient
from sagas.app._output import print_json, print_table
from sagas.engine import CompensationResult, OperatorAction, SagaStatus
from sagas.foundations import Settings


def add_parser(commands: Any) -> None:
    attention = commands.add_parser("attention", help="sagas waiting for an operator")
    sub = attention.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="every saga in NEEDS_ATTENTION")
    listing.add_argument("--output", choices=("table", "json"), default="table")
    retry = sub.add_parser("retry", help="retry the compensation a saga is parked on")
    resolve = sub.add_parser("resolve", help="record that the compensation was done by hand")
    for parser in (retry, resolve):
        parser.add_argument("key", metavar="KEY", help="the transfer's idempotency key")
        parser.add_argument("--operator", required=True, help="who acts")
    retry.add_argument("--note", default="", help="why")
    resolve.add_argument("--note", required=True, help="what was done by hand")


async def run(args: argparse.Namespace, settings: Settings) -> int:
    client = await FundsagaClient.connect(settings, with_ledger=False)
    if args.action == "list":
        return await _list(client, args.output)
    action = OperatorAction(operator=args.operator, note=args.note)
    if args.action == "retry":
        status = await client.retry_compensation(args.key, action)
    else:
        status = await client.resolve(args.key, action)
    print(f"transfer-{args.key}: {status.value} after {args.action} by {args.operator}")
    return 0


async def _list(client: FundsagaClient, output: str) -> int:
    rows: list[dict[str, str]] = []
    for saga_id, _ in await client.list_transfers(SagaStatus.NEEDS_ATTENTION):
        key = saga_id.removeprefix("transfer-")
        view = await client.view(key)
        if view.status is not SagaStatus.NEEDS_ATTENTION:
            continue
        failed = [c for c in view.compensations if c.result is CompensationResult.FAILED]
        rows.append(
            {
                "key": key,
                "saga_id": saga_id,
                "failed_step": view.failure.step_name or "-" if view.failure else "-",
                "parked_on": view.compensation_stack[-1].step_name,
                "last_error": failed[-1].message if failed else "",
            }
        )
    if output == "json":
        print_json(rows)
    else:
        headers = ["key", "saga_id", "failed_step", "parked_on", "last_error"]
        print_table(headers, [[r[h] for h in headers] for r in rows])
    return 0
