"""The CLI's one renderer: `--output table` for people (Rich), `--output json` for programs."""

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
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

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
