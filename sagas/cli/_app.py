"""The `fundsaga` command: one Typer app over every command group."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Annotated

import typer
import typer.main

from sagas.cli import (
    _accounts,
    _attention,
    _audit,
    _audit_report,
    _db,
    _dev,
    _ledger,
    _reconcile,
    _reconciliation_report,
    _retry_plan,
    _sagas,
    _schedules,
    _servers,
    _transfers,
    _verify_report,
)
from sagas.cli._errors import FundsagaGroup
from sagas.cli._invocation import Invocation

SAGAS = "Sagas of every type"
BOOKS = "Ledger and audit trail"
RUNNING = "Running fundsaga"

app = typer.Typer(
    name="fundsaga",
    cls=FundsagaGroup,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(_sagas.app, rich_help_panel=SAGAS)
app.add_typer(_transfers.app, rich_help_panel=SAGAS)
app.add_typer(_attention.app, rich_help_panel=SAGAS)
app.add_typer(_schedules.app, rich_help_panel=SAGAS)
app.add_typer(_accounts.app, rich_help_panel=BOOKS)
app.add_typer(_ledger.app, rich_help_panel=BOOKS)
app.add_typer(_reconcile.app, rich_help_panel=BOOKS)
_audit.app.command()(_audit_report.compensations)
_reconcile.app.command("report")(_reconciliation_report.report)
_audit.app.command("verify-report")(_verify_report.verify_report)
app.add_typer(_audit.app, rich_help_panel=BOOKS)
app.command(rich_help_panel=RUNNING)(_dev.dev)
app.command(rich_help_panel=RUNNING)(_dev.worker)
app.command(rich_help_panel=RUNNING)(_servers.webhooks)
app.command(rich_help_panel=RUNNING)(_servers.collector)
app.command("codec-server", rich_help_panel=RUNNING)(_servers.codec_server)
app.command("payload-key", rich_help_panel=RUNNING)(_servers.payload_key)
app.add_typer(_db.app, rich_help_panel=RUNNING)
app.command("retry-plan", rich_help_panel=SAGAS)(_retry_plan.retry_plan_command)


def _print_version(asked: bool) -> None:
    if asked:
        print(f"fundsaga {version('fundsaga')}")
        raise typer.Exit()


@app.callback()
def fundsaga(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Saga orchestration for money movements on Temporal.

    Exit codes: 0 ok, 1 a failure or a finding, 2 a usage error or invalid input.
    """
    invocation = Invocation()
    ctx.obj = invocation
    ctx.call_on_close(invocation.close)


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run one `fundsaga` command in this process; its exit code. Never raises."""
    command = typer.main.get_command(app)
    code = command.main(
        list(argv) if argv is not None else None, prog_name="fundsaga", standalone_mode=False
    )
    return int(code)
