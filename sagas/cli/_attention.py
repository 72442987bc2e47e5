"""`fundsaga attention ...`: sagas of every type parked in NEEDS_ATTENTION or KILLED, and the
operators' actions on them: a retry by one, a resolution (or a killed saga's recovery) proposed by
one and approved by another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer

from sagas.cli._attention_bulk import app as bulk_app
from sagas.cli._attention_bulk import parked_record
from sagas.cli._invocation import Invocation
from sagas.cli._options import Key, SagaType, TypeFilter
from sagas.cli._output import Output, OutputFormat, emit, key_of, listing, said
from sagas.client import FundsagaClient, ParkedFilter, ParkedSaga, SagaHandle
from sagas.engine import OperatorDecision, RecoveryView, SagaStatus, saga_id
from sagas.foundations import SagaNotFoundError

app = typer.Typer(
    name="attention",
    help="Sagas parked in NEEDS_ATTENTION or KILLED: list them, retry, or propose and approve a "
    "resolution or a killed saga's recovery.",
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
    "effects",
)


@app.command("list")
def list_parked(
    ctx: typer.Context, saga_type: TypeFilter = None, output: Output = OutputFormat.TABLE
) -> None:
    """Every parked saga (a killed saga's recovery too), with the compensation it waits on, why
    and since when, and every killed saga (closed from outside) with its effects as the
    database holds them."""
    invocation = Invocation.of(ctx)

    async def parked() -> list[dict[str, Any]]:
        client = await invocation.client()
        found = await client.bulk_actions().select(ParkedFilter(saga_type=saga_type))
        recoveries = client.recoveries()
        for killed_id, _ in await recoveries.awaiting(saga_type, SagaStatus.NEEDS_ATTENTION):
            found.append(ParkedSaga.of(await recoveries.saga_view(killed_id), None))
        rows = [parked_record(saga) | {"effects": ""} for saga in found]
        return rows + await _killed(client, saga_type)

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


@app.command()
def recover(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    note: Annotated[str, typer.Option(help="Why the saga was killed and what the recovery does.")],
    output: Output = OutputFormat.TABLE,
) -> None:
    """Propose the recovery of a killed saga (closed from outside): before its pivot it is
    compensated, from the pivot on finished forward. Prints the proposal id that another
    operator's `attention approve-recovery` names."""
    invocation = Invocation.of(ctx)

    async def proposed() -> tuple[str, str]:
        recoveries = (await invocation.client()).recoveries()
        return recoveries.operator_name(), await recoveries.propose(saga_id(saga_type, key), note)

    operator, proposal = invocation.run(proposed())
    facts = {"saga_id": saga_id(saga_type, key), "proposal_id": proposal, "operator": operator}
    line = f"{facts['saga_id']}: recovery proposal {proposal} by {operator}"
    emit(said(line, facts), output)


@app.command("approve-recovery")
def approve_recovery(
    ctx: typer.Context,
    key: Key,
    saga_type: SagaType,
    proposal: Annotated[str, typer.Option(help="The proposal id `attention recover` printed.")],
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Approve another operator's recovery proposal: the recovery runs once and prints the
    saga's status (COMPENSATED, COMPLETED). Refused for the proposer, or a second time."""
    invocation = Invocation.of(ctx)

    async def approved() -> tuple[str, SagaStatus]:
        recoveries = (await invocation.client()).recoveries()
        status = await recoveries.approve(saga_id(saga_type, key), proposal, note)
        return recoveries.operator_name(), status

    operator, status = invocation.run(approved())
    facts = {"saga_id": saga_id(saga_type, key), "status": status, "operator": operator}
    emit(said(f"{facts['saga_id']}: recovered, {status} (approved by {operator})", facts), output)


async def _killed(client: FundsagaClient, saga_type: str | None) -> list[dict[str, Any]]:
    """Killed sagas awaiting their recovery, with what the database says they did."""
    rows = []
    for killed_id, kind, _ in await client.list_sagas(saga_type, SagaStatus.KILLED):
        try:
            view: RecoveryView | None = await client.recoveries().view(killed_id)
        except SagaNotFoundError:
            view = None
        rows.append(_killed_row(killed_id, kind, view))
    return rows


def _killed_row(killed_id: str, kind: str, view: RecoveryView | None) -> dict[str, Any]:
    row = {
        "saga_id": killed_id,
        "saga_type": kind,
        "key": key_of(killed_id, kind),
        "error_type": "",
        "since": None if view is None else view.killed.closed_at,
        "proposal": None if view is None or view.proposal is None else view.proposal.proposal_id,
        "proposed_by": None if view is None or view.proposal is None else view.proposal.by.name,
    }
    if view is None:
        return row | {
            "failed_step": "-",
            "parked_on": "killed: the collector has not read its effects yet",
            "last_error": "",
            "effects": "",
        }
    effects = view.effects
    proposal = view.proposal
    waits = f"approval of {proposal.proposal_id} by {proposal.by.name}" if proposal else "proposal"
    money = [f"{account} {amount}" for account, amount in effects.net_effect.items()]
    held = [f"hold {hold}" for hold in effects.active_holds]
    latest = effects.snapshots[-1] if effects.snapshots else None
    plan = f"undo {', '.join(view.compensations) or 'nothing'}"
    if latest is not None and latest.forward_only:
        plan = f"past its pivot: finish forward from {latest.step_name}"
    return row | {
        "failed_step": latest.step_name if latest else "-",
        "parked_on": f"killed ({view.killed.closed_as}): recovery awaits its {waits}",
        "last_error": f"recovery will {plan}",
        "effects": "; ".join(money + held) or "none",
    }


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
