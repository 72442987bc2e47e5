"""The `fundsaga` command: one Typer app over every command group."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Annotated

import typer
import typer.main

from sagas.app import (
    _cli_accounts,
    _cli_attention,
    _cli_audit,
    _cli_audit_report,  # noqa: F401  (registers `audit compensations`)
    _cli_codec,
    _cli_collector,
    _cli_db,
    _cli_dev,
    _cli_ledger,
    _cli_retry_plan,
    _cli_sagas,
    _cli_schedules,
    _cli_transfers,
    _cli_webhooks,
)
from sagas.app._cli_errors import FundsagaGroup
from sagas.app._cli_invocation import Invocation

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
app.add_typer(_cli_sagas.app, rich_help_panel=SAGAS)
app.add_typer(_cli_transfers.app, rich_help_panel=SAGAS)
app.add_typer(_cli_attention.app, rich_help_panel=SAGAS)
app.add_typer(_cli_schedules.app, rich_help_panel=SAGAS)
app.add_typer(_cli_accounts.app, rich_help_panel=BOOKS)
app.add_typer(_cli_ledger.app, rich_help_panel=BOOKS)
app.add_typer(_cli_audit.app, rich_help_panel=BOOKS)
app.command(rich_help_panel=RUNNING)(_cli_dev.dev)
app.command(rich_help_panel=RUNNING)(_cli_dev.worker)
app.command(rich_help_panel=RUNNING)(_cli_webhooks.webhooks)
app.command(rich_help_panel=RUNNING)(_cli_collector.collector)
app.command("codec-server", rich_help_panel=RUNNING)(_cli_codec.codec_server)
app.command("payload-key", rich_help_panel=RUNNING)(_cli_codec.payload_key)
app.add_typer(_cli_db.app, rich_help_panel=RUNNING)
app.command("retry-plan", rich_help_panel=SAGAS)(_cli_retry_plan.retry_plan_command)


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
