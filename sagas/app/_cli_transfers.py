"""`fundsaga transfer ...`: start, follow, cancel and list transfer sagas."""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from sagas.app._client import FundsagaClient
from sagas.app._output import print_json, print_table
from sagas.engine import SagaOutcome, SagaStatus, SagaView
from sagas.foundations import Settings
from sagas.transfer import TransferRequest


def add_parser(commands: Any) -> None:
    transfer = commands.add_parser("transfer", help="transfer sagas")
    sub = transfer.add_subparsers(dest="action", required=True)
    start = sub.add_parser("start", help="start a transfer (idempotent by --key)")
    start.add_argument("--from", dest="source", required=True, metavar="ACCOUNT")
    start.add_argument("--to", dest="destination", required=True, metavar="ACCOUNT")
    start.add_argument("--amount", required=True, help="decimal string, e.g. 12.34")
    start.add_argument("--currency", required=True)
    start.add_argument("--key", help="idempotency key (default: a new uuid)")
    start.add_argument("--reference", default="")
    start.add_argument("--wait", action="store_true", help="wait for the final status")
    for name in ("status", "cancel"):
        sub.add_parser(name, help=f"{name} a transfer").add_argument("key", metavar="KEY")
    listing = sub.add_parser("list", help="transfers known to Temporal")
    listing.add_argument("--status", choices=[s.value for s in SagaStatus])
    for parser in (start, sub.choices["status"], listing):
        parser.add_argument("--output", choices=("table", "json"), default="table")


def _view_json(view: SagaView) -> dict[str, Any]:
    return view.model_dump(mode="json")


def _print_outcome(outcome: SagaOutcome, output: str) -> None:
    if output == "json":
        print_json(outcome.model_dump(mode="json"))
        return
    print(f"{outcome.saga_id}: {outcome.status.value}")
    if outcome.failure is not None:
        print(
            f"  {outcome.failure.reason.value} at {outcome.failure.step_name or '-'}: "
            f"{outcome.failure.message}"
        )
    for comp in outcome.compensations:
        print(f"  {comp.at.isoformat()} {comp.compensation}: {comp.result} {comp.message}")


def _print_view(view: SagaView, output: str) -> None:
    if output == "json":
        print_json(_view_json(view))
        return
    print(f"{view.saga_id}: {view.status.value} (step: {view.current_step or '-'})")
    if view.failure is not None:
        failure = view.failure
        print(f"  failure: {failure.reason.value} at {failure.step_name or '-'}: {failure.message}")
    print_table(
        ["#", "step", "status", "attempt", "recorded_at", "compensation stack"],
        [
            [
                s.step_index,
                s.step_name,
                s.status.value,
                s.attempt,
                s.recorded_at.isoformat(),
                ",".join(e.step_name for e in s.compensation_stack) or "-",
            ]
            for s in view.snapshots
        ],
    )


async def run(args: argparse.Namespace, settings: Settings) -> int:
    client = await FundsagaClient.connect(settings, with_ledger=args.action == "start")
    try:
        return await _apply(client, args)
    finally:
        if client.ledger is not None:
            client.ledger.close_connections()


async def _apply(client: FundsagaClient, args: argparse.Namespace) -> int:
    output = getattr(args, "output", "table")
    if args.action == "start":
        return await _start(client, args, output)
    if args.action == "status":
        _print_view(await client.view(args.key), output)
    elif args.action == "cancel":
        await client.cancel(args.key)
        print(f"cancellation requested for transfer-{args.key}")
    else:
        status = SagaStatus(args.status) if args.status else None
        rows = await client.list_transfers(status)
        if output == "json":
            print_json([{"saga_id": i, "status": s} for i, s in rows])
        else:
            print_table(["saga_id", "status"], rows)
    return 0


async def _start(client: FundsagaClient, args: argparse.Namespace, output: str) -> int:
    request = TransferRequest.parse(
        {
            "idempotency_key": args.key or str(uuid.uuid4()),
            "source_account": args.source,
            "destination_account": args.destination,
            "amount": args.amount,
            "currency": args.currency,
            "reference": args.reference,
        }
    )
    handle = await client.start_transfer(request)
    if not args.wait:
        if output == "json":
            print_json({"saga_id": handle.id, "idempotency_key": request.idempotency_key})
        else:
            print(f"started {handle.id}: {request.summary()}")
        return 0
    outcome = await client.outcome(request.idempotency_key)
    _print_outcome(outcome, output)
    return 0 if outcome.status is SagaStatus.COMPLETED else 1
