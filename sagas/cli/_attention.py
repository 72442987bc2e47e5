"""`fundsaga attention ...`: sagas of every type parked in NEEDS_ATTENTION, and the operators'
actions on them: a retry by one, a resolution proposed by one and approved by another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

import typer

from sagas.cli._attention_bulk import app as bulk_app
from sagas.cli._attention_bulk import parked_record
from sagas.cli._invocation import Invocation
from sagas.cli._options import Key, SagaType, TypeFilter
from sagas.cli._output import Output, OutputFormat, emit, listing, said
from sagas.client import ParkedFilter, ParkedSaga, SagaHandle
from sagas.engine import OperatorDecision

app = typer.Typer(
    name="attention",
    help="Sagas parked in NEEDS_ATTENTION: list them, retry, or propose and approve a resolution.",
    no_args_is_help=True,
)
app.add_typer(bulk_app)
COLUMNS = (
    "saga_id",
    "saga_type",
    "key",
    "failed_step",
    "parked_on",
    "error_type",
    "since",
    "last_error",
)


@app.command("list")
def list_parked(
    ctx: typer.Context, saga_type: TypeFilter = None, output: Output = OutputFormat.TABLE
) -> None:
    """Every parked saga, with the compensation it waits on, why and since when."""
    invocation = Invocation.of(ctx)

    async def parked() -> list[ParkedSaga]:
        bulk = (await invocation.client()).bulk_actions()
        return await bulk.select(ParkedFilter(saga_type=saga_type))

    records = [parked_record(saga) for saga in invocation.run(parked())]
    emit(listing(records, COLUMNS), output)


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
