"""`fundsaga ledger ...`: the double-entry ledger, checked from its own rows, its journal
chain, its signatures and its anchors."""

from __future__ import annotations

import typer

from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit
from sagas.verify import LedgerVerdict, verifier_keys, verify_ledger

app = typer.Typer(name="ledger", help="The double-entry ledger.", no_args_is_help=True)


@app.command()
def verify(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Journal chain, signatures and anchors; entries balance, balances and holds match their
    postings; exit 1 naming the first bad entry."""
    verdict = ledger_verdict(Invocation.of(ctx))
    emit(_shown(verdict), output)
    if not verdict.ok:
        raise typer.Exit(FAILURE)


def ledger_verdict(invocation: Invocation) -> LedgerVerdict:
    """The configured ledger verified against the configured anchor store and public keys."""
    keys = verifier_keys(invocation.settings)
    anchors = invocation.audit(keys).anchors
    return verify_ledger(invocation.ledger(), anchors, keys.keyring)


def _shown(verdict: LedgerVerdict) -> Shown:
    data = {
        "ok": verdict.ok,
        "entries": verdict.entries,
        "head_hash": verdict.head.entry_hash,
        "anchored_at": verdict.anchored_at,
        "findings": verdict.findings,
    }
    if verdict.ok:
        anchored = (
            f"anchored at entry {verdict.anchored_at}"
            if verdict.anchored_at is not None
            else "no anchor yet"
        )
        line = (
            f"ledger intact: {verdict.entries} entries chained, {anchored}; each balanced per "
            "currency; every balance and hold matches its postings"
        )
        return Shown(data, lines=[line])
    first, *more = verdict.findings
    return Shown(data, lines=[f"ledger BROKEN: {first}", *(f"  also: {m}" for m in more)])
