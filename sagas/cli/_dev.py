"""`fundsaga dev` and `fundsaga worker`: the embedded stack and a standalone worker."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from temporalio.client import Client

from activities.audit import anchor_journal
from sagas.cli._db import databases_to_migrate
from sagas.cli._demo_report import write_demo_report
from sagas.cli._dev_ports import DevPorts
from sagas.cli._dev_shell import second_shell_settings, since_run_started, write_dev_env
from sagas.cli._invocation import Invocation
from sagas.client import (
    DevIdentityProvider,
    FundsagaClient,
    configured_operator_check,
    ensure_anchor_schedule,
)
from sagas.codec import PayloadKeys, converter_for
from sagas.demo import (
    DEMO_FAULTS,
    DemoProviderError,
    DemoRun,
    demo_statement_rules,
    open_demo_provider,
    reconcile_demo,
    run_demo,
)
from sagas.engine import FaultPlan, OperatorTokenCheck, parse_faults
from sagas.foundations import (
    DEFAULT_HOME,
    InvalidRequestError,
    ProcessStop,
    Settings,
    upgrade_database,
)
from sagas.reconcile import StatementRules
from sagas.registry import SagaRegistry, load_registry
from sagas.servers import (
    DEV_CODEC_TOKEN_FILE,
    new_dev_codec_token,
    serve_codec,
    start_dev_server,
)
from sagas.telemetry import configured_tracer_provider, metrics_runtime, tracing_interceptors
from sagas.verify import anchor_head, writer_keys
from sagas.worker import RunningActivities, announce_encryption, build_worker

DEV_SERVER_LOG_LEVEL = "error"
"""The dev server's own warnings are its shutdown's (its system workers polling a frontend that
has stopped) and start-up notes; its errors still show."""


def dev(
    ctx: typer.Context,
    demo: Annotated[
        bool,
        typer.Option("--demo", help="Run the saga catalog: one saga per outcome of every type."),
    ] = False,
    no_worker: Annotated[
        bool,
        typer.Option(
            "--no-worker",
            help="No built-in worker: run your own (`fundsaga worker`, build_worker) against it.",
        ),
    ] = False,
    port: Annotated[int, typer.Option(help="Temporal's port (gRPC).")] = 7233,
    ui_port: Annotated[int, typer.Option(help="The Web UI's port.")] = 8233,
    http_port: Annotated[
        int | None,
        typer.Option(help="Temporal's HTTP API port (default: the Web UI's port + 1)."),
    ] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(help="Temporal's own /metrics port (default: the Web UI's port + 2)."),
    ] = None,
    codec_port: Annotated[
        int,
        typer.Option(help="The codec server's port, when FUNDSAGA_PAYLOAD_KEYS is set."),
    ] = 8888,
) -> None:
    """Temporal dev server with its Web UI, migrated SQLite and a worker, under .fundsaga/.

    Every port it binds is on 127.0.0.1 and checked before anything starts: a port another
    process holds is refused by its option. With FUNDSAGA_PAYLOAD_KEYS set, payloads are
    encrypted and a codec server on the loopback interface lets the Web UI show them decoded."""
    if no_worker and demo:
        raise InvalidRequestError("--demo", "needs the built-in worker: drop --no-worker")
    invocation = Invocation.of(ctx)
    ports = DevPorts(
        port,
        ui_port,
        ui_port + 1 if http_port is None else http_port,
        ui_port + 2 if metrics_port is None else metrics_port,
        codec_port,
    )
    invocation.run(run_dev(invocation, demo, no_worker, ports))


def worker(ctx: typer.Context) -> None:
    """A worker for every registered saga type, against TEMPORAL_ADDRESS."""
    invocation = Invocation.of(ctx)
    invocation.run(run_worker(invocation))


async def run_dev(invocation: Invocation, demo: bool, no_worker: bool, ports: DevPorts) -> None:
    running = RunningActivities()
    stop = ProcessStop("fundsaga dev", grace_window(invocation.settings), left=running.describe)
    async with stop.installed():
        await serve_dev(invocation, demo, no_worker, ports, stop, running)


async def serve_dev(
    invocation: Invocation,
    demo: bool,
    no_worker: bool,
    ports: DevPorts,
    stop: ProcessStop,
    running: RunningActivities,
) -> None:
    started = time.monotonic()
    settings = invocation.settings
    payload_keys = PayloadKeys.parse(settings.payload_keys.get_secret_value())
    ports.check(codec=payload_keys is not None)
    for url in databases_to_migrate(settings):
        upgrade_database(url)
    registry, faults = registry_and_faults(settings, DEMO_FAULTS if demo else "")
    keys = writer_keys(settings, make_dev_key=True)
    ledger = invocation.ledger(signing=True)
    ui_url = f"http://localhost:{ports.ui_port}"
    print(f"starting Temporal dev server on 127.0.0.1:{ports.port} (Web UI {ui_url}) ...")
    codec_url = f"http://127.0.0.1:{ports.codec_port}" if payload_keys else None
    env = await start_dev_server(
        port=ports.port,
        ui_port=ports.ui_port,
        http_port=ports.http_port,
        metrics_port=ports.metrics_port,
        database_file=DEFAULT_HOME / "temporal.db",
        runtime=None if no_worker else metrics_runtime(settings),
        interceptors=tracing_interceptors(configured_tracer_provider(settings)),
        data_converter=converter_for(payload_keys),
        ui_codec_endpoint=None,  # the UI's settings would show its token to any local user
        log_level=DEV_SERVER_LOG_LEVEL,
        own_group=True,
    )
    audit = invocation.audit(keys)
    shell = second_shell_settings(settings, ports.port)
    dev_env = write_dev_env(shell)
    print(f"for a second shell in this directory: . {dev_env}  (sets {', '.join(shell)})")
    print(f"  TEMPORAL_ADDRESS={shell['TEMPORAL_ADDRESS']}")
    async with env, AsyncExitStack() as stack:
        if payload_keys is not None:
            token = dev_codec_token(settings)
            origins = [*settings.codec_server_origin_list, ui_url]
            stack.enter_context(
                serve_codec(payload_keys, token, origins, "127.0.0.1", ports.codec_port)
            )
            print(
                f"payloads encrypted under key {payload_keys.active_id!r}; the codec server at "
                f"{codec_url} decodes them for the holder of its token: "
                f"{codec_token_use(settings, codec_url)}"
            )
        if no_worker:
            print(f"no worker started; start one on task queue {settings.task_queue!r}")
        else:
            await stack.enter_async_context(
                build_worker(
                    env.client,
                    settings.task_queue,
                    ledger,
                    audit,
                    faults,
                    registry=registry,
                    retry_specs=settings.retry_specs,
                    operators=dev_operator_check(settings),
                    graceful_shutdown=grace_window(settings),
                    running_activities=running,
                    statement_rules=(
                        demo_statement_rules(settings) if demo else StatementRules.of(settings)
                    ),
                )
            )
            print(
                f"worker running saga types {', '.join(registry.names())} on task queue "
                f"{settings.task_queue!r}; ledger {settings.database_url}"
            )
            print_metrics_address(settings)
            await announce_encryption(env.client)
            await schedule_anchors(env.client, settings)
        if demo:
            # The demo's failures are on purpose; their stack traces would bury the summary.
            logging.getLogger("temporalio.activity").setLevel(logging.ERROR)
            client = FundsagaClient.configured(env.client, settings, ledger)
            await run_catalog(stack, client, settings, ui_url)
            anchored = anchor_head(audit)
            if anchored is not None:
                print(f"audit chain anchored at record {anchored.sequence}")
            journal = anchor_journal(ledger, audit.anchors)
            if journal is not None:
                print(f"ledger journal anchored at entry {journal.sequence}")
            print("the reconciliation pack of the demo's day:")
            await write_demo_report(f"127.0.0.1:{ports.port}")
        print(ready_line(time.monotonic() - started, since_run_started()))
        print(f"open {ui_url} to read the histories; Ctrl-C stops everything")
        await stop.wait()


def ready_line(in_dev: float, since_make_run: float | None) -> str:
    if since_make_run is None:
        return f"ready in {in_dev:.1f} s"
    return f"ready in {since_make_run:.1f} s from `make run` ({in_dev:.1f} s of it in fundsaga dev)"


async def run_catalog(
    stack: AsyncExitStack, client: FundsagaClient, settings: Settings, ui_url: str
) -> list[DemoRun]:
    """The demo, its payouts only when the provider simulator answers (`make run` starts it)."""
    print("demo sagas:")
    started = time.monotonic()
    try:
        provider = await open_demo_provider(stack, client, settings)
    except DemoProviderError as err:
        provider = None
        print(f"  external payouts skipped: {err}")
    runs = await run_demo(client, ui_url, provider)
    print(f"{len(runs)} demo sagas ended in {time.monotonic() - started:.1f} s")
    if provider is not None:
        print("the provider's statements of today, reconciled:")
        for facts in await reconcile_demo(client, provider):
            print(f"  {statement_line(facts)}")
            print(f"    {proof_line(facts)}")
    return runs


def statement_line(facts: Mapping[str, Any]) -> str:
    """One imported statement: what it held and what matching made of it."""
    return (
        f"{facts['file']} ({facts['format']}, sha256 {str(facts['sha256'])[:12]}…): "
        f"{facts['lines']} lines, {facts['matched']} matched, {facts['opened']} break(s)"
    )


def proof_line(facts: Mapping[str, Any]) -> str:
    """The statement's proof of cash: its closing balance against the ledger's."""
    proof = facts.get("proof_of_cash")
    if not isinstance(proof, Mapping):
        return "proof of cash: the statement states no balances"
    verdict = "balanced" if proof["balances"] else "NOT balanced"
    return (
        f"proof of cash: closing {proof['closing']}, ledger {proof['ledger_balance']}, "
        f"difference {proof['difference']}: {verdict}"
    )


async def run_worker(invocation: Invocation) -> None:
    running = RunningActivities()
    stop = ProcessStop("fundsaga worker", grace_window(invocation.settings), left=running.describe)
    async with stop.installed():
        await serve_worker(invocation, stop, running)


async def serve_worker(
    invocation: Invocation, stop: ProcessStop, running: RunningActivities
) -> None:
    settings = invocation.settings
    registry, faults = registry_and_faults(settings)
    statement_rules = StatementRules.of(settings)  # a bad rules file stops it before it waits
    client = await invocation.temporal(serve_metrics=True, wait=True)
    ledger = invocation.ledger(signing=True)
    store = invocation.audit(writer_keys(settings))
    worker = build_worker(
        client,
        settings.task_queue,
        ledger,
        store,
        faults,
        registry=registry,
        retry_specs=settings.retry_specs,
        operators=worker_operator_check(settings),
        graceful_shutdown=grace_window(settings),
        running_activities=running,
        statement_rules=statement_rules,
    )
    async with worker:
        print(
            f"worker running saga types {', '.join(registry.names())} on "
            f"{settings.temporal_address}, task queue {settings.task_queue!r}"
        )
        print_metrics_address(settings)
        await announce_encryption(client)
        await schedule_anchors(client, settings)
        await stop.wait()


def registry_and_faults(
    settings: Settings, extra_faults: str = ""
) -> tuple[SagaRegistry, FaultPlan]:
    """The registered saga types, then the fault plan: a rule may name an error class that a
    saga module defines, so the modules are imported first."""
    registry = load_registry(settings.saga_module_names)
    spec = ";".join(s for s in (settings.faults, extra_faults) if s)
    return registry, parse_faults(spec)


def dev_codec_token(settings: Settings) -> str:
    """FUNDSAGA_CODEC_SERVER_TOKEN; else a new one for this run, written 0600 under the dev home
    (no token would let any local user decode the histories, operator tokens and all)."""
    configured = settings.codec_server_token.get_secret_value()
    if configured:
        return configured
    return new_dev_codec_token(DEFAULT_HOME).read_text()


def codec_token_use(settings: Settings, codec_url: str | None) -> str:
    """How the developer sends the dev codec server its token."""
    if settings.codec_server_token.get_secret_value():
        return "FUNDSAGA_CODEC_SERVER_TOKEN"
    token_file = DEFAULT_HOME / DEV_CODEC_TOKEN_FILE
    return (
        f"`Authorization: Bearer $(cat {token_file})` (temporal --codec-auth), or in the Web "
        f"UI's codec settings the endpoint {codec_url}/$(cat {token_file})"
    )


def worker_operator_check(settings: Settings) -> OperatorTokenCheck | None:
    """The identity provider a worker trusts for operator actions (FUNDSAGA_OPERATOR_JWKS)."""
    check = configured_operator_check(settings)
    if check is None:
        logging.getLogger("fundsaga.worker").warning(
            "no identity provider configured (FUNDSAGA_OPERATOR_JWKS): this worker refuses "
            "every operator action"
        )
    return check


def dev_operator_check(settings: Settings) -> OperatorTokenCheck:
    """The identity provider the dev worker trusts: the configured one, else the development
    one, made at FUNDSAGA_DEV_IDENTITY on first use; operators then act as FUNDSAGA_OPERATOR
    (or the OS user), signed in to it."""
    configured = configured_operator_check(settings)
    if configured is not None:
        return configured
    provider = DevIdentityProvider(Path(settings.dev_identity))
    print(
        f"operators sign in to the development identity provider at {provider.directory}: "
        "FUNDSAGA_OPERATOR names who acts"
    )
    return provider.check(timedelta(seconds=settings.operator_token_max_lifetime))


def print_metrics_address(settings: Settings) -> None:
    if settings.metrics_address:
        print(f"metrics for Prometheus at http://{settings.metrics_address}/metrics")


async def schedule_anchors(temporal: Client, settings: Settings) -> None:
    if settings.audit_anchor_minutes:
        every = timedelta(minutes=settings.audit_anchor_minutes)
        await ensure_anchor_schedule(temporal, settings.task_queue, every)


def grace_window(settings: Settings) -> timedelta:
    """How long a stopping worker lets its steps finish: FUNDSAGA_SHUTDOWN_GRACE_SECONDS."""
    return timedelta(seconds=settings.shutdown_grace_seconds)


async def until_stopped(name: str, settings: Settings) -> None:
    """Serve until Ctrl-C, SIGTERM or a closed terminal (SIGHUP); the caller's context managers
    then shut down, within the grace window plus a margin, or the process exits leaving them
    (a second signal: at once)."""
    stop = ProcessStop(name, grace_window(settings))
    stop.install()
    await stop.wait()
