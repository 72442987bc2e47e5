"""`fundsaga webhooks`, `collector`, `codec-server`, `payload-key`: the servers beside Temporal."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from sagas.cli._dev import registry_and_faults, until_stopped
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.codec import KEYS_SETTING, PayloadKeys
from sagas.foundations import InvalidRequestError, Settings, configured_access_tokens
from sagas.servers import (
    CodecAuthorisation,
    Collection,
    CollectorGauges,
    VisibilityCollector,
    WebhookSecrets,
    run_collector,
    serve_codec,
    serve_webhooks,
)
from sagas.telemetry import prometheus_runtime


def webhooks(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8480,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
) -> None:
    """Receive provider callbacks at POST /events/<saga type>/<key>/<event name>, signed with
    the saga type's secret in FUNDSAGA_WEBHOOK_SECRETS, and signal the saga."""
    invocation = Invocation.of(ctx)
    invocation.run(run_webhooks(invocation, host, port))


async def run_webhooks(invocation: Invocation, host: str, port: int) -> None:
    settings = invocation.settings
    secrets = WebhookSecrets.configured(settings)
    client = await invocation.client(wait=True)
    max_body = settings.webhook_max_body
    async with serve_webhooks(client, secrets, port, host, max_body=max_body) as server:
        print(f"webhook receiver on {server.url}/events/<saga type>/<key>/<event name>")
        await until_stopped("fundsaga webhooks", settings)


def collector(
    ctx: typer.Context,
    once: Annotated[
        bool, typer.Option("--once", help="Collect once, print the figures and exit.")
    ] = False,
) -> None:
    """Parked and overdue sagas per type, the task queue's pollers and the ledger's invariants,
    served at FUNDSAGA_METRICS_ADDRESS. Run one per task queue."""
    invocation = Invocation.of(ctx).scanning()
    if once:
        collection = invocation.run(collect_once(invocation))
        print(render_collection(collection))
        if collection.ledger_findings or collection.ledger_error or collection.temporal_error:
            raise typer.Exit(FAILURE)
        return
    if not invocation.settings.metrics_address:
        raise InvalidRequestError("FUNDSAGA_METRICS_ADDRESS", "the collector needs an address")
    invocation.run(serve_collector(invocation))


async def _collector(invocation: Invocation, *, serve_metrics: bool) -> VisibilityCollector:
    settings = invocation.settings
    registry, _ = registry_and_faults(settings)
    temporal = await invocation.temporal(serve_metrics=serve_metrics, wait=serve_metrics)
    ledger = invocation.ledger() if settings.ledger_check_seconds else None
    return VisibilityCollector(temporal, settings.task_queue, [t.name for t in registry], ledger)


async def collect_once(invocation: Invocation) -> Collection:
    collector = await _collector(invocation, serve_metrics=False)
    return await collector.collect(datetime.now(UTC), check_ledger=True)


async def serve_collector(invocation: Invocation) -> None:
    settings = invocation.settings
    collector = await _collector(invocation, serve_metrics=True)
    gauges = CollectorGauges(prometheus_runtime(settings.metrics_address).metric_meter)
    print(
        f"collector for task queue {settings.task_queue!r} every {settings.collector_seconds} s; "
        f"metrics for Prometheus at http://{settings.metrics_address}/metrics"
    )
    ledger_every = settings.ledger_check_seconds
    collecting = asyncio.create_task(
        run_collector(
            collector,
            gauges,
            timedelta(seconds=settings.collector_seconds),
            timedelta(seconds=ledger_every) if ledger_every else None,
        )
    )
    stopped = asyncio.create_task(until_stopped("fundsaga collector", settings))
    await asyncio.wait([collecting, stopped], return_when=asyncio.FIRST_COMPLETED)
    collecting.cancel()  # a run in progress is dropped: the next collector's first run redoes it
    stopped.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await collecting  # raises what ended the collector, if it ended by itself


def render_collection(collection: Collection) -> str:
    """Each part's figures, or why the part could not be read."""
    lines = [f"task queue {collection.task_queue}"]
    if collection.temporal_error is not None:
        lines.append(f"  temporal: not read: {collection.temporal_error}")
    else:
        lines += _backlog_lines(collection)
    findings = collection.ledger_findings
    if collection.ledger_error is not None:
        lines.append(f"ledger: not checked: {collection.ledger_error}")
    elif findings is None:
        lines.append("ledger: not checked (FUNDSAGA_LEDGER_CHECK_SECONDS=0)")
    elif not findings:
        lines.append("ledger: invariants hold")
    else:
        lines += ["ledger: invariants broken", *(f"  {f}" for f in findings)]
    return "\n".join(lines)


def _backlog_lines(collection: Collection) -> list[str]:
    lines = [f"  pollers ({kind.value}): {count}" for kind, count in collection.pollers.items()]
    lines.append(
        f"  {'saga type':<24} {'parked':>7} {'oldest parked':>14} {'past deadline':>14}"
        f" {'killed':>7} {'waiting':>8} {'longest wait':>13}"
    )
    for b in collection.backlogs:
        oldest = f"{int(b.oldest_needing_attention.total_seconds())} s"
        longest = f"{int(b.oldest_infrastructure_wait.total_seconds())} s"
        lines.append(
            f"  {b.saga_type:<24} {b.needing_attention:>7} {oldest:>14} {b.past_deadline:>14}"
            f" {b.killed:>7} {b.waiting_on_infrastructure:>8} {longest:>13}"
        )
    return lines


def codec_server(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8888,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
) -> None:
    """Decode (and encode) payloads for the Temporal UI and the `temporal` CLI, for callers
    with FUNDSAGA_CODEC_SERVER_TOKEN as their bearer token."""
    invocation = Invocation.of(ctx)
    invocation.run(run_codec_server(invocation.settings, host, port))


def payload_key(
    key_id: Annotated[str, typer.Argument(help="The new key's id, say key-2026-11.")],
) -> None:
    """Print a new entry for FUNDSAGA_PAYLOAD_KEYS: put it first to encrypt with it, and keep
    the old entries after it while histories they sealed are still read."""
    entry = PayloadKeys.generate(key_id)
    PayloadKeys.parse(entry)  # the id must be one the setting accepts
    print(entry)


def required_keys(settings: Settings) -> PayloadKeys:
    keys = PayloadKeys.parse(settings.payload_keys.get_secret_value())
    if keys is None:
        raise InvalidRequestError(KEYS_SETTING, "not set: there is nothing to decrypt with")
    return keys


async def run_codec_server(settings: Settings, host: str, port: int) -> None:
    auth = codec_authorisation(settings)
    origins = settings.codec_server_origin_list
    with serve_codec(required_keys(settings), auth, origins, host, port) as server:
        who = [
            *(["the bearer token"] if auth.token else []),
            *(["signed-in operators' access tokens"] if auth.access_tokens else []),
        ]
        print(
            f"codec server on {server.url} (POST .../decode, .../encode) for origins "
            f"{', '.join(origins) or 'none'}; "
            + (f"accepts {' or '.join(who)}" if who else "no token: loopback only")
        )
        await until_stopped("fundsaga codec-server", settings)


def codec_authorisation(settings: Settings) -> CodecAuthorisation:
    """The static token, and the identity provider's access tokens when its JWKS is set
    (audience and issuer then required)."""
    token = settings.codec_server_token.get_secret_value()
    check = configured_access_tokens(
        ("FUNDSAGA_CODEC_SERVER_JWKS_URL", settings.codec_server_jwks_url),
        ("FUNDSAGA_CODEC_SERVER_AUDIENCE", settings.codec_server_audience),
        ("FUNDSAGA_CODEC_SERVER_ISSUER", settings.codec_server_issuer),
    )
    return CodecAuthorisation(token, check)
