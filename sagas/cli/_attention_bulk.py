"""`fundsaga attention bulk ...`: one operator action on every parked saga a filter selects,
listed first with `--dry-run`; each saga verifies the operator and audits its own action."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Annotated, Any

import typer

from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._options import TypeFilter
from sagas.cli._output import Output, OutputFormat, emit, listing
from sagas.client import (
    ActionResult,
    BulkActions,
    ParkedFilter,
    ParkedSaga,
    SagaActionResult,
)
from sagas.engine import OperatorDecision
from sagas.foundations import InvalidRequestError
from sagas.registry import SagaRegistry, load_registry

app = typer.Typer(
    name="bulk",
    help="Retry, propose or approve every parked saga a filter selects; --dry-run lists them.",
    no_args_is_help=True,
)
SAGA_COLUMNS = ("saga_id", "saga_type", "key", "parked_on", "error_type", "since", "proposal")
RESULT_COLUMNS = ("saga_id", "saga_type", "parked_on", "result", "detail")
OPTION_OF_FIELD = {
    "saga_type": "--type",
    "step": "--step",
    "error_type": "--error-type",
    "parked_since": "--parked-since",
    "parked_before": "--parked-before",
}

Step = Annotated[
    str | None,
    typer.Option("--step", help="Only sagas parked on this step (its compensation, or itself)."),
]
ErrorType = Annotated[
    str | None,
    typer.Option("--error-type", help="Only sagas parked by this error type."),
]
ParkedSince = Annotated[
    str | None,
    typer.Option(metavar="ISO8601", help="Only sagas parked at or after, e.g. 2026-11-26T09:00Z."),
]
ParkedBefore = Annotated[
    str | None, typer.Option(metavar="ISO8601", help="Only sagas parked before then.")
]
All = Annotated[
    bool, typer.Option("--all", help="Act on every parked saga: needed when no filter is given.")
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="List the matching sagas and act on none.")]


@app.command()
def retry(
    ctx: typer.Context,
    saga_type: TypeFilter = None,
    step: Step = None,
    error_type: ErrorType = None,
    parked_since: ParkedSince = None,
    parked_before: ParkedBefore = None,
    every: All = False,
    dry_run: DryRun = False,
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Retry what each matching saga is parked on, as `attention retry` does for one."""
    selection = _filter(saga_type, step, error_type, parked_since, parked_before, every)
    _bulk(ctx, selection, OperatorDecision.RETRY, dry_run, output, lambda b, s: b.retry(s, note))


@app.command()
def propose(
    ctx: typer.Context,
    note: Annotated[str, typer.Option(help="What was done by hand.")],
    saga_type: TypeFilter = None,
    step: Step = None,
    error_type: ErrorType = None,
    parked_since: ParkedSince = None,
    parked_before: ParkedBefore = None,
    every: All = False,
    dry_run: DryRun = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Propose for each matching saga that what it is parked on was done by hand; another
    operator's `attention bulk approve` (or `attention approve`) approves each."""
    selection = _filter(saga_type, step, error_type, parked_since, parked_before, every)
    _bulk(
        ctx, selection, OperatorDecision.PROPOSE, dry_run, output, lambda b, s: b.propose(s, note)
    )


@app.command()
def approve(
    ctx: typer.Context,
    saga_type: TypeFilter = None,
    step: Step = None,
    error_type: ErrorType = None,
    parked_since: ParkedSince = None,
    parked_before: ParkedBefore = None,
    every: All = False,
    dry_run: DryRun = False,
    note: Annotated[str, typer.Option(help="Why.")] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Approve each matching saga's open proposal, made by another operator (check them first
    with --dry-run); a saga without one, or whose proposal went stale, is refused."""
    selection = _filter(saga_type, step, error_type, parked_since, parked_before, every)
    _bulk(
        ctx, selection, OperatorDecision.APPROVE, dry_run, output, lambda b, s: b.approve(s, note)
    )


Act = Callable[[BulkActions, Sequence[ParkedSaga]], Awaitable[list[SagaActionResult]]]


def _bulk(
    ctx: typer.Context,
    selection: ParkedFilter,
    decision: OperatorDecision,
    dry_run: bool,
    output: OutputFormat,
    act: Act,
) -> None:
    invocation = Invocation.of(ctx)
    _check(selection, load_registry(invocation.settings.saga_module_names))

    async def run() -> tuple[list[ParkedSaga], list[SagaActionResult] | None, str]:
        bulk = (await invocation.client()).bulk_actions()
        found = await bulk.select(selection)
        if dry_run:
            return found, None, ""
        return found, await act(bulk, found), bulk.acting_as

    found, results, operator = invocation.run(run())
    if results is None:
        line = f"dry run: {len(found)} parked saga(s) would be sent {decision.value}; none was"
        emit(listing([parked_record(saga) for saga in found], SAGA_COLUMNS, lines=[line]), output)
        return
    refused = sum(1 for r in results if r.result is ActionResult.REFUSED)
    line = f"{decision.value} by {operator}: {len(results) - refused} done, {refused} refused"
    records = [_result_record(r, decision, operator) for r in results]
    emit(listing(records, RESULT_COLUMNS, lines=[line]), output)
    if refused:
        raise typer.Exit(FAILURE)


def _check(selection: ParkedFilter, registry: SagaRegistry) -> None:
    """Bad filter values are refused naming the option, before Temporal is asked."""
    try:
        selection.check(registry)
    except InvalidRequestError as err:
        raise InvalidRequestError(OPTION_OF_FIELD.get(err.field, err.field), err.problem) from None


def _filter(
    saga_type: str | None,
    step: str | None,
    error_type: str | None,
    parked_since: str | None,
    parked_before: str | None,
    every: bool,
) -> ParkedFilter:
    selection = ParkedFilter(
        saga_type=saga_type,
        step=step,
        error_type=error_type,
        parked_since=_moment(parked_since, "--parked-since"),
        parked_before=_moment(parked_before, "--parked-before"),
    )
    if selection.is_empty and not every:
        raise InvalidRequestError(
            "filter",
            "name --type, --step, --error-type, --parked-since or --parked-before, "
            "or --all for every parked saga",
        )
    return selection


def _moment(text: str | None, option: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidRequestError(option, f"{text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise InvalidRequestError(option, "needs a UTC offset, say 2026-11-26T09:00Z")
    return moment


def parked_record(saga: ParkedSaga) -> dict[str, Any]:
    """A parked saga as `attention list` and the bulk commands show it."""
    return {
        "saga_id": saga.saga_id,
        "saga_type": saga.saga_type,
        "key": saga.key,
        "failed_step": saga.failed_step or "-",
        "parked_on": f"{saga.parked_on} (step)" if saga.on_step else saga.parked_on,
        "error_type": saga.error_type,
        "last_error": saga.error,
        "since": saga.since,
        "proposal": saga.proposal_id,
        "proposed_by": saga.proposed_by,
    }


def _result_record(
    result: SagaActionResult, decision: OperatorDecision, operator: str
) -> dict[str, Any]:
    return parked_record(result.saga) | {
        "decision": decision,
        "operator": operator,
        "result": result.result,
        "detail": result.detail,
    }
