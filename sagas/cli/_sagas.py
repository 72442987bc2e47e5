"""`fundsaga sagas ...`: start, list, view, wait for and cancel sagas of every registered type."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import typer
from temporalio.client import WorkflowExecutionStatus

from sagas.cli._errors import CommandRefusedError
from sagas.cli._invocation import Invocation
from sagas.cli._options import Key, RequestJson, SagaType, StatusFilter, TypeFilter, request_fields
from sagas.cli._output import (
    Output,
    OutputFormat,
    Shown,
    emit,
    key_of,
    outcome_shown,
    sagas_shown,
    said,
    view_shown,
)
from sagas.client import Launch, ListedSaga, SagaReading, WaitingSaga
from sagas.engine import (
    SAGA_STATUS,
    SagaOutcome,
    SagaRequest,
    SagaStatus,
    completed_or_raise,
)
from sagas.registry import load_registry

app = typer.Typer(
    name="sagas",
    help="Sagas of every registered type: start, list, view, wait for, cancel.",
    no_args_is_help=True,
)


@app.command()
def start(
    ctx: typer.Context,
    saga_type: SagaType,
    request: RequestJson,
    wait: Annotated[bool, typer.Option("--wait", help="Wait for the outcome.")] = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Start a saga, idempotent by the request's idempotency_key; exit 1 when its key's saga is
    closed or parked (nothing started). With --wait, wait until it closes or parks, exit 1
    unless it COMPLETED."""
    invocation = Invocation.of(ctx)
    parsed = _parsed_request(invocation, saga_type, request_fields(request))
    start_saga(invocation, saga_type, parsed, wait=wait, output=output)


def start_saga(
    invocation: Invocation,
    saga_type: str,
    request: SagaRequest,
    *,
    wait: bool,
    output: OutputFormat,
) -> None:
    """Start the saga (its accounts checked first); with `wait`, show how it ends or parks.

    A start that finds the key's saga running says so; one that finds it closed or parked
    started nothing, and says how that saga stands with exit 1.
    """

    async def launched() -> Launch:
        client = await invocation.client(with_ledger=True)
        return await client.launch(saga_type, request)

    launch = invocation.run(launched())
    key = request.idempotency_key
    facts = {
        "saga_id": launch.handle.id,
        "idempotency_key": key,
        "started": launch.started,
        "status": launch.status.value,
    }
    if not launch.going:
        emit(said(f"{launch.handle.id}: {launch.status.value}", facts), output)
        raise CommandRefusedError(f"not started: {_standing(launch.handle.id, launch.status)}")
    if wait:
        wait_settled(invocation, saga_type, key, output)
        return
    said_as = "started" if launch.started else f"already running ({launch.status.value})"
    emit(said(f"{said_as} {launch.handle.id}: {request.summary()}", facts), output)


def _standing(saga: str, status: SagaStatus) -> str:
    """How a saga that a start or a wait found not moving stands, and what helps."""
    if status is SagaStatus.NEEDS_ATTENTION:
        return (
            f"saga {saga} is parked in NEEDS_ATTENTION: an operator is needed "
            "(fundsaga attention retry|propose)"
        )
    if status is SagaStatus.KILLED:
        return (
            f"saga {saga} was closed from outside (KILLED): an operator recovers it "
            "(fundsaga attention recover)"
        )
    return f"the key is already used by saga {saga}, which ended {status.value}"


def _parsed_request(invocation: Invocation, saga_type: str, fields: dict[str, Any]) -> SagaRequest:
    """The request checked before Temporal is asked anything: bad input is a usage error."""
    return load_registry(invocation.settings.saga_module_names).parse_request(saga_type, fields)


@app.command("list")
def list_sagas(
    ctx: typer.Context,
    saga_type: TypeFilter = None,
    status: StatusFilter = None,
    waiting: Annotated[
        bool,
        typer.Option(
            "--waiting",
            help="Only sagas waiting out a fault of the infrastructure (the database down, "
            "say), with the fault and since when; they go on by themselves once it passes.",
        ),
    ] = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Sagas on this deployment's task queue, newest first: status (as `sagas view` shows
    it), amount, parties, reference."""
    show_list(Invocation.of(ctx), saga_type, status, output, waiting=waiting)


@app.command()
def view(
    ctx: typer.Context, key: Key, saga_type: SagaType, output: Output = OutputFormat.TABLE
) -> None:
    """One saga as `sagas list` shows it, then its failure, snapshots and compensation
    stack; a killed saga names its recovery."""
    show_view(Invocation.of(ctx), saga_type, key, output)


@app.command()
def wait(
    ctx: typer.Context, key: Key, saga_type: SagaType, output: Output = OutputFormat.TABLE
) -> None:
    """Wait until the saga closes and show its outcome; exit 1 unless it COMPLETED."""
    wait_for(Invocation.of(ctx), saga_type, key, output)


@app.command()
def cancel(
    ctx: typer.Context, key: Key, saga_type: SagaType, output: Output = OutputFormat.TABLE
) -> None:
    """Ask a running saga to stop; it compensates what it did."""
    cancel_saga(Invocation.of(ctx), saga_type, key, output)


def show_list(
    invocation: Invocation,
    saga_type: str | None,
    status: SagaStatus | None,
    output: OutputFormat,
    *,
    waiting: bool = False,
) -> None:
    if waiting:
        show_waiting(invocation, saga_type, status, output)
        return

    async def found() -> list[ListedSaga]:
        return await (await invocation.client()).sagas(saga_type, status)

    emit(sagas_shown(invocation.run(found())), output)


def show_waiting(
    invocation: Invocation, saga_type: str | None, status: SagaStatus | None, output: OutputFormat
) -> None:
    async def found() -> list[WaitingSaga]:
        return await (await invocation.client()).waiting_sagas(saga_type, status)

    emit(waiting_shown(invocation.run(found()), datetime.now(UTC)), output)


WAITING_COLUMNS = ("saga_id", "saga_type", "key", "status", "waiting_on", "since", "waited")
WAITING_NOTE = "waiting out a fault of the infrastructure; each goes on by itself once it passes"


def waiting_shown(found: Sequence[WaitingSaga], now: datetime) -> Shown:
    """Each waiting saga with its fault, since when and how long at `now`; in JSON the wait's
    start as `waiting_since` and its length in whole seconds as `waited_seconds`."""
    rows = [
        [
            saga.saga_id,
            saga.saga_type,
            key_of(saga.saga_id, saga.saga_type),
            saga.status,
            saga.waiting_on,
            None if saga.waiting_since is None else saga.waiting_since.isoformat("T", "seconds"),
            waited_text(saga.waited(now)),
        ]
        for saga in found
    ]
    lines = [WAITING_NOTE] if found else []
    records = [_waiting_record(saga, now) for saga in found]
    return Shown(data=records, lines=lines, columns=WAITING_COLUMNS, rows=rows)


def _waiting_record(saga: WaitingSaga, now: datetime) -> dict[str, Any]:
    waited = saga.waited(now)
    return {
        "saga_id": saga.saga_id,
        "saga_type": saga.saga_type,
        "key": key_of(saga.saga_id, saga.saga_type),
        "status": saga.status.value,
        "waiting_on": saga.waiting_on,
        "waiting_since": saga.waiting_since,
        "waited_seconds": None if waited is None else int(waited.total_seconds()),
    }


def waited_text(waited: timedelta | None) -> str:
    """A wait's length for people: `42 s`, `5 min 12 s`, `3 h 20 min`."""
    if waited is None:
        return "-"
    minutes, seconds = divmod(int(waited.total_seconds()), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def show_view(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    async def viewed() -> SagaReading:
        client = await invocation.client(with_ledger=True)  # each step's recorded attempts
        return await client.saga(saga_type, key).read()

    emit(view_shown(invocation.run(viewed())), output)


def wait_for(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    async def outcome() -> SagaOutcome:
        return await (await invocation.client()).saga(saga_type, key).outcome()

    ended = invocation.run(outcome())
    emit(outcome_shown(ended), output)
    completed_or_raise(ended)


def wait_settled(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    """Show the saga's outcome once it closes, or its status once it parks or is killed; exit 1
    unless it COMPLETED."""

    async def settled() -> tuple[str, SagaOutcome | SagaStatus]:
        saga = (await invocation.client()).saga(saga_type, key)
        return saga.saga_id, await saga.settled()

    saga, ended = invocation.run(settled())
    if isinstance(ended, SagaStatus):
        facts = {"saga_id": saga, "idempotency_key": key, "status": ended.value}
        emit(said(f"{saga}: {ended.value}", facts), output)
        raise CommandRefusedError(_standing(saga, ended))
    emit(outcome_shown(ended), output)
    completed_or_raise(ended)


def cancel_saga(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    async def cancelled() -> str:
        saga = (await invocation.client()).saga(saga_type, key)
        described = await saga.describe()
        status = described.typed_search_attributes.get(SAGA_STATUS)
        if described.status is not WorkflowExecutionStatus.RUNNING:
            raise CommandRefusedError(
                f"saga {saga.saga_id} is closed ({status}): nothing to cancel"
            )
        if status == SagaStatus.NEEDS_ATTENTION:
            raise CommandRefusedError(
                f"saga {saga.saga_id} is parked in NEEDS_ATTENTION, where a cancel does "
                "nothing: retry or resolve it (fundsaga attention retry|resolve)"
            )
        await saga.cancel()
        return saga.saga_id

    saga_id = invocation.run(cancelled())
    emit(said(f"cancellation requested for {saga_id}", {"saga_id": saga_id}), output)
