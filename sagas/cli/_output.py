"""The CLI's one renderer: `--output table` for people (Rich), `--output json` for programs;
how sagas of any type are shown in it: a listing, a view with its snapshots, an outcome."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import Enum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from sagas.engine import (
    BatchItemOutcome,
    BatchOutcome,
    BatchView,
    SagaOutcome,
    SagaStatus,
    StepFailure,
    item_counts,
)

if TYPE_CHECKING:
    from sagas.client import ListedSaga, SagaReading

WIDE = 1000
"""Columns of a table that goes to a file or a pipe: never wrapped or cut for a screen."""


class OutputFormat(StrEnum):
    TABLE = "table"  # lines and an aligned table, for people
    JSON = "json"  # for programs: amounts as decimal strings, a listing always a list


Output = Annotated[
    OutputFormat,
    typer.Option("--output", "-o", help="Table for people, json for programs."),
]


@dataclass(frozen=True)
class Shown:
    """What a command prints: `data` as JSON; for people, `lines` and then a table."""

    data: Any
    lines: Sequence[str] = ()
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[object]] = ()


def listing(
    records: Sequence[Mapping[str, Any]], columns: Sequence[str], *, lines: Sequence[str] = ()
) -> Shown:
    """Records as a JSON list whatever their number, and as a table of `columns`."""
    rows = [[record[column] for column in columns] for record in records]
    return Shown(data=list(records), lines=lines, columns=columns, rows=rows)


def said(line: str, data: Mapping[str, Any]) -> Shown:
    """One line for people, its facts as a JSON object."""
    return Shown(data=dict(data), lines=[line])


def render(shown: Shown, output: OutputFormat, *, terminal: bool = False) -> str:
    if output is OutputFormat.JSON:
        return json.dumps(shown.data, indent=2, sort_keys=True, default=_json_value) + "\n"
    width = shutil.get_terminal_size().columns if terminal else WIDE
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, force_terminal=terminal, highlight=False, soft_wrap=True
    )
    for line in shown.lines:
        console.print(Text(line))
    if shown.columns:
        console.print(_table(shown))
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def emit(shown: Shown, output: OutputFormat) -> None:
    """Print to stdout; a reader that stops early (`| head`) ends the output quietly."""
    write_out(render(shown, output, terminal=sys.stdout.isatty()))


def write_out(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that no later flush meets the closed pipe again."""
    try:
        target = sys.stdout.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, target)
    os.close(devnull)


def _table(shown: Shown) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in shown.columns:
        table.add_column(column, overflow="fold")
    for row in shown.rows:
        table.add_row(*(Text(_cell(value)) for value in row))
    return table


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _json_value(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal | Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} has no JSON form in the CLI")


SAGA_COLUMNS = ("saga_id", "saga_type", "key", "status", "amount", "parties", "reference")


def sagas_shown(found: Sequence[ListedSaga]) -> Shown:
    """Sagas as `FundsagaClient.sagas` lists them: each status as `sagas view` shows it, and
    the money its saga type declares (`-` where it declares none)."""
    rows = [
        [
            saga.saga_id,
            saga.saga_type,
            saga.key,
            saga.standing.text(),
            saga.money.amount_text(),
            saga.money.parties_text(),
            saga.money.reference_text(),
        ]
        for saga in found
    ]
    records = [listed_record(saga) for saga in found]
    return Shown(data=records, columns=SAGA_COLUMNS, rows=rows)


def listed_record(saga: ListedSaga) -> dict[str, Any]:
    """A saga's facts in JSON, the same in `sagas list` and `sagas view`."""
    standing = saga.standing
    return {
        "saga_id": saga.saga_id,
        "saga_type": saga.saga_type,
        "key": saga.key,
        "status": standing.status.value,
        "waiting_on": standing.waiting_on,
        "waiting_since": standing.waiting_since,
        "killed_as": standing.killed_as,
        "recovery_id": standing.recovery_id,
        "amounts": dict(saga.money.amounts),
        "parties": dict(saga.money.parties),
        "reference": saga.money.reference,
    }


def key_of(saga_id: str, saga_type: str) -> str:
    """The caller's key inside a saga id (`<saga type>-<key>`)."""
    return saga_id.removeprefix(f"{saga_type}-")


def view_shown(reading: SagaReading) -> Shown:
    """The saga headed as `sagas list` lists it, then its snapshots."""
    view, listed = reading.view, reading.listed
    data = view.model_dump(mode="json") | listed_record(listed)
    if isinstance(view, BatchView):
        running = f"{listed.standing.text()}, {len(view.items)} of {view.total} ended, "
        state = running + f"running: {view.running or '-'}"
        return _batch_shown(data, f"{view.saga_id}: {state}", view.items)
    money = listed.money
    lines = [
        f"{view.saga_id}: {listed.standing.text()} (step: {view.current_step or '-'})",
        f"  amount: {money.amount_text()}; parties: {money.parties_text()}; "
        f"reference: {money.reference_text()}",
    ]
    if listed.standing.killed_as is not None:
        lines.append(f"  killed: {killed_text(listed)}")
    if view.failure is not None:
        lines.append(f"  failure: {failure_text(view.failure)}")
    if view.waiting_on is not None and view.waiting_since is not None:
        since = view.waiting_since.isoformat(timespec="seconds")
        lines.append(
            f"  waiting on the infrastructure: {view.waiting_on} since {since}; "
            "it goes on by itself once that passes"
        )
    rows = [
        [
            s.step_index,
            s.step_name,
            s.status,
            s.attempt,
            s.recorded_at,
            ",".join(e.step_name for e in s.compensation_stack) or "-",
        ]
        for s in view.snapshots
    ]
    columns = ("#", "step", "status", "attempt", "recorded_at", "compensation stack")
    return Shown(data=data, lines=lines, columns=columns, rows=rows)


def killed_text(listed: ListedSaga) -> str:
    """Where a killed saga's story goes on: its recovery workflow, and what it waits for."""
    standing = listed.standing
    closed = f"Temporal closed its execution from outside ({standing.killed_as})"
    command = f"fundsaga attention {{}} {listed.key} --type {listed.saga_type}"
    if standing.recovery_id is None:
        return (
            f"{closed}; the collector starts its recovery, or "
            f"`{command.format('recover')} --note TEXT`"
        )
    if standing.status is SagaStatus.KILLED:
        return (
            f"{closed}; its recovery {standing.recovery_id} waits for two operators: "
            f"`{command.format('recover')} --note TEXT`, then another "
            f"`{command.format('approve-recovery')} --proposal ID`"
        )
    return f"{closed}; {standing.recovery_id} took it over, and this view is the recovery's"


def outcome_shown(outcome: SagaOutcome) -> Shown:
    if isinstance(outcome, BatchOutcome):
        return _batch_shown(outcome, f"{outcome.saga_id}: {outcome.status.value}", outcome.items)
    lines = [f"{outcome.saga_id}: {outcome.status.value}"]
    if outcome.failure is not None:
        lines.append(f"  failure: {failure_text(outcome.failure)}")
    rows = [[c.at, c.step_name, c.result, c.message] for c in outcome.compensations]
    columns = ("at", "step", "result", "message") if rows else ()
    return Shown(data=outcome, lines=lines, columns=columns, rows=rows)


def failure_text(failure: StepFailure) -> str:
    return f"{failure.reason.value} at {failure.step_name or '-'}: {failure.message}"


def _batch_shown(data: object, head: str, items: list[BatchItemOutcome]) -> Shown:
    counts = ", ".join(f"{status} {n}" for status, n in item_counts(items).items()) or "none"
    lines = [head, f"  items: {counts}"]
    rows = [
        [i.number, i.saga_id, i.status, failure_text(i.failure) if i.failure else i.note]
        for i in items
    ]
    return Shown(data=data, lines=lines, columns=("#", "saga", "status", "why"), rows=rows)
