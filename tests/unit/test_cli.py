"""The command tree without a server: help everywhere, the version, the one renderer and the
one place that turns exceptions into a line and an exit code."""

from __future__ import annotations

import json
from decimal import Decimal
from importlib.metadata import version

import pytest
import typer.main
from sqlalchemy.exc import OperationalError
from temporalio.service import RPCError, RPCStatusCode
from typer.core import TyperGroup
from typer.testing import CliRunner

from sagas import InvalidRequestError, NotParkedError
from sagas.cli import OutputFormat, app, explain, listing, render, said

RUNNER = CliRunner()


def command_paths(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every group and command of the tree, the root included."""
    found = [path]
    if isinstance(command, TyperGroup):
        for name, child in command.commands.items():
            found += command_paths(child, (*path, name))
    return found


@pytest.mark.parametrize(
    "path", command_paths(typer.main.get_command(app)), ids=lambda path: " ".join(path) or "-"
)
def test_every_group_and_command_answers_help(path: tuple[str, ...]) -> None:
    result = RUNNER.invoke(app, [*path, "--help"], prog_name="fundsaga")

    assert result.exit_code == 0, result.output
    assert f"Usage: fundsaga {' '.join(path)}".rstrip() in result.stdout


def test_version() -> None:
    result = RUNNER.invoke(app, ["--version"])

    assert (result.exit_code, result.stdout) == (0, f"fundsaga {version('fundsaga')}\n")


def test_a_group_without_a_command_shows_its_help_as_a_usage_error() -> None:
    result = RUNNER.invoke(app, ["attention"], prog_name="fundsaga")

    assert result.exit_code == 2
    assert "retry" in result.stdout
    assert result.stderr == ""


def test_a_bad_setting_is_refused_in_one_line_naming_the_variable() -> None:
    result = RUNNER.invoke(
        app, ["accounts", "list"], env={"FUNDSAGA_TEMPORAL_CONNECT_TIMEOUT": "0"}
    )

    assert result.exit_code == 2
    assert result.stderr.startswith("error: FUNDSAGA_TEMPORAL_CONNECT_TIMEOUT: ")
    assert len(result.stderr.splitlines()) == 1


def test_json_keeps_a_listing_of_one_a_list_and_amounts_decimal_strings() -> None:
    shown = listing([{"account_id": "a", "balance": Decimal("1.50")}], ["account_id", "balance"])

    assert json.loads(render(shown, OutputFormat.JSON)) == [{"account_id": "a", "balance": "1.50"}]


def test_a_table_for_a_pipe_is_never_cut_and_prints_no_markup() -> None:
    long = "x" * 400
    shown = listing([{"id": "[bold]a[/bold]", "note": long}], ["id", "note"])

    lines = render(shown, OutputFormat.TABLE).splitlines()

    assert lines[0].split() == ["id", "note"]
    assert lines[1].split() == ["[bold]a[/bold]", long]


def test_a_said_line_is_its_facts_in_json() -> None:
    shown = said("cancellation requested for transfer-k", {"saga_id": "transfer-k"})

    assert render(shown, OutputFormat.TABLE) == "cancellation requested for transfer-k\n"
    assert json.loads(render(shown, OutputFormat.JSON)) == {"saga_id": "transfer-k"}


@pytest.mark.parametrize(
    ("error", "line", "code"),
    [
        (InvalidRequestError("amount", "not a number"), "error: amount: not a number", 2),
        (NotParkedError("saga s is closed"), "error: NotParkedError: saga s is closed", 1),
        (
            RPCError("connection reset", RPCStatusCode.UNAVAILABLE, b""),
            "error: Temporal is not reachable: connection reset",
            1,
        ),
        (
            RPCError("no such namespace", RPCStatusCode.NOT_FOUND, b""),
            "error: not found: no such namespace",
            1,
        ),
        (
            OperationalError("SELECT 1", {}, Exception("no such table: account")),
            "error: database: no such table: account",
            1,
        ),
        (KeyError("x"), "error: unexpected KeyError: 'x'", 1),
        (ValueError("first\n  second"), "error: unexpected ValueError: first second", 1),
    ],
)
def test_every_exception_is_one_line_and_an_exit_code(
    error: Exception, line: str, code: int
) -> None:
    assert explain(error) == (line, code)
