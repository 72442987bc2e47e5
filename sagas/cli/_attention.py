"""`fundsaga attention ...`: sagas of every type parked in NEEDS_ATTENTION, and the operators'
actions on them: a retry by one, a resolution proposed by one and approved by another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

import typer

from sagas.cli._attention_bulk import app as bulk_app
from sagas.cli._invocation import Invocation
from sagas.cli._options import Key, SagaType, TypeFilter
from sagas.cli._output import Output, OutputFormat, emit, key_of, listing, said
from sagas.client import SagaHandle
from sagas.engine import (
    CompensationResult,
    OperatorDecision,
    SagaStatus,
    SagaView,
)

app = typer.Typer(
    name="attention",
    help="Sagas parked in NEEDS_ATTENTION: list them, retry, or propose and approve a resolution.",
    no_args_is_help=True,
)
app.add_typer(bulk_app)
COLUMNS = ("saga_id", "saga_type", "key", "failed_step", "parked_on", "last_error")


@app.command("list")
def list_parked(
    ctx: typer.Context, saga_type: TypeFilter = None, output: Output = OutputFormat.TABLE
) -> None:
    """Every parked saga, with the compensation it waits on and why."""
    invocation = Invocation.of(ctx)

    async def parked() -> list[dict[str, str]]:
        client = await invocation.client()
        found = await client.list_sagas(saga_type, SagaStatus.NEEDS_ATTENTION)
        views = [
            await SagaHandle(client.temporal, kind, key_of(sid, kind)).view()
            for sid, kind, _ in found
        ]
        return [_parked(view) for view in views if view.status is SagaStatus.NEEDS_ATTENTION]

    emit(listing(invocation.run(parked()), COLUMNS), output)


@app.command()
def retry(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Run the parked compensation again, with its full retry spec; a saga parked on a step
    (past its pivot, or on an unknown outcome) runs the step again. One operator is enough."""
    _act(
        ctx,
        saga_type,
        key,
        OperatorDecision.RETRY,
        lambda saga: saga.retry(note),
        output,
    )


@app.command()
def propose(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    note: Annotated[str, typer.Option(help="What was done by hand.")],
    output: Output = OutputFormat.TABLE,
) -> None:
    """Propose that the parked compensation (or step) was done by hand; prints the proposal id
    that another operator's `attention approve` names."""
    _act(
        ctx,
        saga_type,
        key,
        OperatorDecision.PROPOSE,
        lambda saga: saga.propose(note),
        output,
    )


@app.command()
def approve(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    proposal: Annotated[str, typer.Option(help="The proposal id `attention propose` printed.")],
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Approve another operator's proposal: the saga records the resolution and ends RESOLVED
    once the remaining compensations ran. Refused for the proposer, or if the saga changed."""
    _act(
        ctx,
        saga_type,
        key,
        OperatorDecision.APPROVE,
        lambda saga: saga.approve(proposal, note),
        output,
    )


def _act(
    ctx: typer.Context,
    saga_type: str,
    key: str,
    decision: OperatorDecision,
    action: Callable[[SagaHandle], Awaitable[str]],
    output: OutputFormat,
) -> None:
    invocation = Invocation.of(ctx)

    async def acted() -> tuple[SagaHandle, str]:
        saga = (await invocation.client()).saga(saga_type, key)
        return saga, await action(saga)

    saga, result = invocation.run(acted())
    facts = {"saga_id": saga.saga_id, "decision": decision, "operator": saga.acting_as}
    if decision is OperatorDecision.PROPOSE:
        line = f"{saga.saga_id}: proposal {result} by {saga.acting_as}"
        emit(said(line, facts | {"proposal_id": result}), output)
    else:
        line = f"{saga.saga_id}: {result} after {decision.value} by {saga.acting_as}"
        emit(said(line, facts | {"status": result}), output)


def _parked_on(view: SagaView) -> str:
    """What an operator's retry runs again: the step itself, or the compensation on top."""
    if view.parked_on_step and view.failure is not None:
        return f"{view.failure.step_name} (step)"
    return view.compensation_stack[-1].step_name if view.compensation_stack else "-"


def _parked(view: SagaView) -> dict[str, str]:
    failed = [c for c in view.compensations if c.result is CompensationResult.FAILED]
    return {
        "saga_id": view.saga_id,
        "saga_type": view.saga_type,
        "key": key_of(view.saga_id, view.saga_type),
        "failed_step": (view.failure.step_name or "-") if view.failure else "-",
        "parked_on": _parked_on(view),
        "last_error": failed[-1].message if failed else "",
    }
