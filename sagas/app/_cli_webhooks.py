"""`fundsaga webhooks`: the webhook receiver that turns callbacks into saga events."""

from __future__ import annotations

from typing import Annotated

import typer

from sagas.app._cli_dev import until_stopped
from sagas.app._cli_invocation import Invocation
from sagas.app._webhooks import serve_webhooks


def webhooks(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8480,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
) -> None:
    """Receive callbacks at POST /events/<saga type>/<key>/<event name> and signal the saga."""
    invocation = Invocation.of(ctx)
    invocation.run(run_webhooks(invocation, host, port))


async def run_webhooks(invocation: Invocation, host: str, port: int) -> None:
    client = await invocation.client()
    async with serve_webhooks(client, port, host) as server:
        print(f"webhook receiver on {server.url}/events/<saga type>/<key>/<event name>")
        await until_stopped()
