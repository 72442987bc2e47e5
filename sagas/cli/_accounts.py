"""`fundsaga accounts ...`: open, list, show, freeze and close ledger accounts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit, listing
from sagas.foundations import Money, parse_money
from sagas.ledger import AccountView, Ledger

app = typer.Typer(
    name="accounts",
    help="Ledger accounts: open, list, show, freeze, unfreeze, close.",
    no_args_is_help=True,
)
COLUMNS = ("account_id", "currency", "status", "balance", "held", "available", "overdraft")
AccountId = Annotated[str, typer.Argument(metavar="ID", help="The account's id.")]


@app.command()
def create(
    ctx: typer.Context,
    account_id: AccountId,
    currency: Annotated[str, typer.Option(help="ISO 4217 code, e.g. EUR.")],
    opening_balance: Annotated[
        str | None, typer.Option(metavar="AMOUNT", help="Funded from @funding.")
    ] = None,
    overdraft: Annotated[
        str | None, typer.Option(metavar="AMOUNT", help="How far below zero it may go.")
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Open an account (an opening balance is a journal entry, signed: needs the signing key)."""
    opened = (
        Invocation.of(ctx)
        .ledger(signing=opening_balance is not None)
        .open_account(
            account_id,
            currency,
            opening_balance=_money(opening_balance, currency, "opening_balance"),
            overdraft=_money(overdraft, currency, "overdraft"),
        )
    )
    emit(accounts_shown([opened], one=True), output)


@app.command("list")
def list_accounts(
    ctx: typer.Context,
    include_system: Annotated[
        bool, typer.Option("--all", help="Include the @funding and @clearing accounts.")
    ] = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Every customer account."""
    ledger = Invocation.of(ctx).ledger()
    emit(accounts_shown(ledger.accounts(include_system=include_system)), output)


@app.command()
def show(ctx: typer.Context, account_id: AccountId, output: Output = OutputFormat.TABLE) -> None:
    """One account."""
    _one(ctx, account_id, Ledger.account, output)


@app.command()
def freeze(ctx: typer.Context, account_id: AccountId, output: Output = OutputFormat.TABLE) -> None:
    """Refuse new movements on the account."""
    _one(ctx, account_id, Ledger.freeze, output)


@app.command()
def unfreeze(
    ctx: typer.Context, account_id: AccountId, output: Output = OutputFormat.TABLE
) -> None:
    """Accept new movements again."""
    _one(ctx, account_id, Ledger.unfreeze, output)


@app.command()
def close(ctx: typer.Context, account_id: AccountId, output: Output = OutputFormat.TABLE) -> None:
    """Close for good; the balance and the held amount must be zero."""
    _one(ctx, account_id, Ledger.close_account, output)


def _one(
    ctx: typer.Context,
    account_id: str,
    act: Callable[[Ledger, str], AccountView],
    output: OutputFormat,
) -> None:
    emit(accounts_shown([act(Invocation.of(ctx).ledger(), account_id)], one=True), output)


def accounts_shown(views: list[AccountView], *, one: bool = False) -> Shown:
    """A listing of accounts; `one` shows a single account as a JSON object."""
    shown = listing([account_json(view) for view in views], COLUMNS)
    return Shown(shown.data[0], columns=shown.columns, rows=shown.rows) if one else shown


def account_json(view: AccountView) -> dict[str, Any]:
    return {
        "account_id": view.account_id,
        "currency": view.currency,
        "status": view.status.value,
        "balance": view.balance.amount_text(),
        "held": view.held.amount_text(),
        "available": view.available.amount_text(),
        "overdraft": view.overdraft.amount_text(),
    }


def _money(text: str | None, currency: str, field: str) -> Money | None:
    return parse_money(text, currency, field=field, allow_zero=True) if text else None
