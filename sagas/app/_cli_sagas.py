"""`fundsaga sagas ...`: list, view, wait for and cancel sagas of every registered type."""

from __future__ import annotations

import typer
from temporalio.client import WorkflowExecutionStatus

from sagas.app._cli_errors import CommandRefusedError
from sagas.app._cli_invocation import Invocation
from sagas.app._cli_options import Key, SagaType, StatusFilter, TypeFilter
from sagas.app._cli_saga_output import outcome_shown, sagas_shown, view_shown
from sagas.app._output import Output, OutputFormat, emit, said
from sagas.engine import SAGA_STATUS, SagaOutcome, SagaStatus, SagaView, completed_or_raise

app = typer.Typer(
    name="sagas",
    help="Sagas of every registered type: list, view, wait for, cancel.",
    no_args_is_help=True,
)


@app.command("list")
def list_sagas(
    ctx: typer.Context,
    saga_type: TypeFilter = None,
    status: StatusFilter = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Sagas on this deployment's task queue, newest first."""
    show_list(Invocation.of(ctx), saga_type, status, output)


@app.command()
def view(
    ctx: typer.Context, key: Key, saga_type: SagaType, output: Output = OutputFormat.TABLE
) -> None:
    """Status, failure, snapshots and compensation stack of one saga."""
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
    invocation: Invocation, saga_type: str | None, status: SagaStatus | None, output: OutputFormat
) -> None:
    async def found() -> list[tuple[str, str, str]]:
        return await (await invocation.client()).list_sagas(saga_type, status)

    emit(sagas_shown(invocation.run(found())), output)


def show_view(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    async def viewed() -> SagaView:
        return await (await invocation.client()).saga(saga_type, key).view()

    emit(view_shown(invocation.run(viewed())), output)


def wait_for(invocation: Invocation, saga_type: str, key: str, output: OutputFormat) -> None:
    async def outcome() -> SagaOutcome:
        return await (await invocation.client()).saga(saga_type, key).outcome()

    ended = invocation.run(outcome())
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
