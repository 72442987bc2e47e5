"""`fundsaga transfer ...`: the typed shortcut for transfer sagas."""

from __future__ import annotations

import uuid
from typing import Annotated

import typer

from sagas.cli._invocation import Invocation
from sagas.cli._options import Key, StatusFilter
from sagas.cli._output import Output, OutputFormat
from sagas.cli._sagas import cancel_saga, show_list, show_view, start_saga
from sagas.transfer import TRANSFER_SAGA, TransferRequest

TRANSFER = TRANSFER_SAGA.saga_type

app = typer.Typer(
    name="transfer",
    help="Transfer sagas: start, view, cancel, list.",
    no_args_is_help=True,
)


@app.command()
def start(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--from", metavar="ACCOUNT", help="Debited account.")],
    destination: Annotated[str, typer.Option("--to", metavar="ACCOUNT", help="Credited account.")],
    amount: Annotated[str, typer.Option(help="Decimal string, e.g. 12.34.")],
    currency: Annotated[str, typer.Option(help="ISO 4217 code, e.g. EUR.")],
    key: Annotated[
        str | None, typer.Option(help="Idempotency key.", show_default="a new uuid")
    ] = None,
    reference: Annotated[str, typer.Option(help="Free text for the ledger.")] = "",
    wait: Annotated[bool, typer.Option("--wait", help="Wait for the outcome.")] = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Start a transfer, idempotent by --key; exit 1 when the key's transfer is closed or parked
    (nothing started). With --wait, wait until it closes or parks, exit 1 unless it COMPLETED."""
    invocation = Invocation.of(ctx)
    request = TransferRequest.parse(
        {
            "idempotency_key": key or str(uuid.uuid4()),
            "source_account": source,
            "destination_account": destination,
            "amount": amount,
            "currency": currency,
            "reference": reference,
        }
    )
    start_saga(invocation, TRANSFER, request, wait=wait, output=output)


@app.command()
def view(ctx: typer.Context, key: Key, output: Output = OutputFormat.TABLE) -> None:
    """Status, failure, snapshots and compensation stack of a transfer."""
    show_view(Invocation.of(ctx), TRANSFER, key, output)


@app.command()
def cancel(ctx: typer.Context, key: Key, output: Output = OutputFormat.TABLE) -> None:
    """Ask a running transfer to stop; it compensates what it did."""
    cancel_saga(Invocation.of(ctx), TRANSFER, key, output)


@app.command("list")
def list_transfers(
    ctx: typer.Context, status: StatusFilter = None, output: Output = OutputFormat.TABLE
) -> None:
    """Transfers on this deployment's task queue, newest first."""
    show_list(Invocation.of(ctx), TRANSFER, status, output)
