"""`fundsaga attention ...`: sagas of every type parked in NEEDS_ATTENTION, and the operator's
two actions on them."""

from __future__ import annotations

from typing import Annotated

import typer

from sagas.app._cli_invocation import Invocation
from sagas.app._cli_options import Key, Operator, SagaType, TypeFilter
from sagas.app._cli_saga_output import key_of
from sagas.app._output import Output, OutputFormat, emit, listing, said
from sagas.app._saga_handle import SagaHandle
from sagas.engine import (
    CompensationResult,
    OperatorAction,
    OperatorDecision,
    SagaStatus,
    SagaView,
)

app = typer.Typer(
    name="attention",
    help="Sagas parked in NEEDS_ATTENTION: list them, retry or resolve a compensation.",
    no_args_is_help=True,
)
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
    operator: Operator,
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Run the parked compensation again, with its full retry spec; a saga parked on a step
    (past its pivot, or on an unknown outcome) runs the step again."""
    _act(
        ctx,
        saga_type,
        key,
        OperatorDecision.RETRY,
        OperatorAction(operator=operator, note=note),
        output,
    )


@app.command()
def resolve(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    operator: Operator,
    note: Annotated[str, typer.Option(help="What was done by hand.")],
    output: Output = OutputFormat.TABLE,
) -> None:
    """Record that the compensation (or the parked step) was done by hand; the saga ends
    RESOLVED once the remaining compensations ran."""
    _act(
        ctx,
        saga_type,
        key,
        OperatorDecision.RESOLVE,
        OperatorAction(operator=operator, note=note),
        output,
    )


def _act(
    ctx: typer.Context,
    saga_type: str,
    key: str,
    decision: OperatorDecision,
    action: OperatorAction,
    output: OutputFormat,
) -> None:
    invocation = Invocation.of(ctx)

    async def acted() -> tuple[str, SagaStatus]:
        saga = (await invocation.client()).saga(saga_type, key)
        if decision is OperatorDecision.RETRY:
            return saga.saga_id, await saga.retry_compensation(action)
        return saga.saga_id, await saga.resolve(action)

    saga_id, status = invocation.run(acted())
    line = f"{saga_id}: {status.value} after {decision.value} by {action.operator}"
    facts = {
        "saga_id": saga_id,
        "decision": decision,
        "operator": action.operator,
        "status": status,
    }
    emit(said(line, facts), output)


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
