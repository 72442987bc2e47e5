"""`fundsaga accounts ...`: open, list, show, freeze and close ledger accounts, and fund them.

Freeze, unfreeze, close and an overdraft limit are operator actions: the worker verifies the
operator's proof, acts and records it. Funding creates money, so one operator proposes it and
another approves it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from pydantic import JsonValue

from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit, listing
from sagas.engine import AuditKind, FundingView
from sagas.foundations import Money, parse_money
from sagas.ledger import AccountView, Ledger

app = typer.Typer(
    name="accounts",
    help="Ledger accounts: open, list, show, freeze, unfreeze, close; fund by two operators.",
    no_args_is_help=True,
)
COLUMNS = ("account_id", "currency", "status", "balance", "held", "available", "overdraft")
AccountId = Annotated[str, typer.Argument(metavar="ID", help="The account's id.")]
Note = Annotated[str, typer.Option(help="Why; kept in the audit record.")]


@app.command()
def create(
    ctx: typer.Context,
    account_id: AccountId,
    currency: Annotated[str, typer.Option(help="ISO 4217 code, e.g. EUR.")],
    opening_balance: Annotated[
        str | None,
        typer.Option(
            metavar="AMOUNT",
            help="Proposed as a funding from @funding: another operator approves it.",
        ),
    ] = None,
    overdraft: Annotated[
        str | None,
        typer.Option(
            metavar="AMOUNT",
            help="How far below zero it may go: above zero, an operator action, audited.",
        ),
    ] = None,
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Open an account; an overdraft limit is granted by a verified operator's action, and an
    opening balance is a funding proposal that another operator approves
    (`accounts approve-funding`)."""
    invocation = Invocation.of(ctx)
    balance = _money(opening_balance, currency, "opening_balance")
    limit = _money(overdraft, currency, "overdraft")
    granted = limit if limit is not None and limit.minor else None
    if granted is None and (balance is None or not balance.minor):
        opened = invocation.ledger().open_account(account_id, currency)
        emit(accounts_shown([opened], one=True), output)
        return

    async def open_and_propose() -> FundingView | None:
        actions = (await invocation.client()).operator_actions()  # Temporal first: or nothing
        if granted is None:
            invocation.ledger().open_account(account_id, currency)
        else:
            await actions.open_account_with_limit(account_id, granted, note)
        if balance is None or not balance.minor:
            return None
        return await actions.funding(
            await actions.propose_funding(account_id, balance, "opening balance")
        )

    proposed = invocation.run(open_and_propose())
    if proposed is None:
        emit(accounts_shown([invocation.ledger().account(account_id)], one=True), output)
    else:
        emit(funding_shown(proposed), output)


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
def freeze(
    ctx: typer.Context, account_id: AccountId, note: Note = "", output: Output = OutputFormat.TABLE
) -> None:
    """Refuse new movements on the account (an operator action, audited)."""
    _act(ctx, AuditKind.ACCOUNT_FROZEN, account_id, note, output)


@app.command()
def unfreeze(
    ctx: typer.Context, account_id: AccountId, note: Note = "", output: Output = OutputFormat.TABLE
) -> None:
    """Accept new movements again (an operator action, audited)."""
    _act(ctx, AuditKind.ACCOUNT_UNFROZEN, account_id, note, output)


@app.command()
def close(
    ctx: typer.Context, account_id: AccountId, note: Note = "", output: Output = OutputFormat.TABLE
) -> None:
    """Close for good; the balance and the held amount must be zero (an operator action,
    audited)."""
    _act(ctx, AuditKind.ACCOUNT_CLOSED, account_id, note, output)


@app.command()
def fund(
    ctx: typer.Context,
    account_id: AccountId,
    amount: Annotated[str, typer.Argument(metavar="AMOUNT", help="In the account's currency.")],
    note: Annotated[str, typer.Option(help="Why; kept in the audit record.")],
    output: Output = OutputFormat.TABLE,
) -> None:
    """Propose to bring AMOUNT into the account from @funding; another operator approves it
    (`accounts approve-funding`) before any money is created."""
    invocation = Invocation.of(ctx)
    account = invocation.ledger().account(account_id)
    money = parse_money(amount, account.currency, field="amount")
    emit(funding_shown(invocation.run(_propose(invocation, account_id, money, note))), output)


@app.command("approve-funding")
def approve_funding(
    ctx: typer.Context,
    funding_id: Annotated[str, typer.Argument(metavar="FUNDING_ID", help="funding-...")],
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Approve another operator's funding proposal: the worker posts the entry."""
    invocation = Invocation.of(ctx)

    async def approve() -> FundingView:
        return (
            await (await invocation.client()).operator_actions().approve_funding(funding_id, note)
        )

    emit(funding_shown(invocation.run(approve())), output)


@app.command()
def funding(
    ctx: typer.Context,
    funding_id: Annotated[str, typer.Argument(metavar="FUNDING_ID", help="funding-...")],
    output: Output = OutputFormat.TABLE,
) -> None:
    """A funding proposal as it stands."""
    invocation = Invocation.of(ctx)

    async def view() -> FundingView:
        return await (await invocation.client()).operator_actions().funding(funding_id)

    emit(funding_shown(invocation.run(view())), output)


async def _propose(
    invocation: Invocation, account_id: str, amount: Money, note: str
) -> FundingView:
    actions = (await invocation.client()).operator_actions()
    return await actions.funding(await actions.propose_funding(account_id, amount, note))


def _act(
    ctx: typer.Context, kind: AuditKind, account_id: str, note: str, output: OutputFormat
) -> None:
    invocation = Invocation.of(ctx)

    async def act() -> dict[str, JsonValue]:
        actions = (await invocation.client()).operator_actions()
        return await actions.set_account_status(kind, account_id, note)

    invocation.run(act())
    emit(accounts_shown([invocation.ledger().account(account_id)], one=True), output)


def funding_shown(view: FundingView) -> Shown:
    shown = listing([funding_json(view)], FUNDING_COLUMNS)
    return Shown(shown.data[0], columns=shown.columns, rows=shown.rows)


FUNDING_COLUMNS = (
    "funding_id",
    "account_id",
    "amount",
    "currency",
    "status",
    "proposed_by",
    "approved_by",
)


def funding_json(view: FundingView) -> dict[str, Any]:
    return {
        "funding_id": view.funding_id,
        "account_id": view.account_id,
        "amount": view.amount,
        "currency": view.currency,
        "status": view.status.value,
        "proposed_by": view.proposed_by.name if view.proposed_by else "",
        "approved_by": view.approved_by.name if view.approved_by else "",
        "entry_id": view.entry_id or "",
    }


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
