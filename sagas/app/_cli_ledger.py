"""`fundsaga ledger ...`: the double-entry ledger, checked from its own rows."""

from __future__ import annotations

import typer

from sagas.app._cli_errors import FAILURE
from sagas.app._cli_invocation import Invocation
from sagas.app._ledger_verify import LedgerVerdict, verify_ledger
from sagas.app._output import Output, OutputFormat, Shown, emit

app = typer.Typer(name="ledger", help="The double-entry ledger.", no_args_is_help=True)


@app.command()
def verify(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Entries balance, balances and holds match their postings; exit 1 on a finding."""
    verdict = verify_ledger(Invocation.of(ctx).ledger())
    emit(_shown(verdict), output)
    if not verdict.ok:
        raise typer.Exit(FAILURE)


def _shown(verdict: LedgerVerdict) -> Shown:
    data = {"ok": verdict.ok, "entries": verdict.entries, "findings": verdict.findings}
    if verdict.ok:
        line = (
            f"ledger intact: {verdict.entries} entries, each balanced per currency; every "
            "balance and hold matches its postings"
        )
        return Shown(data, lines=[line])
    first, *more = verdict.findings
    return Shown(data, lines=[f"ledger BROKEN: {first}", *(f"  also: {m}" for m in more)])
