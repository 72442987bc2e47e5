"""`fundsaga ledger ...`: the double-entry ledger, checked from its own rows, its journal
chain, its signatures, its anchors, this verifier's memory, and Temporal as its witness."""

from __future__ import annotations

import typer

from sagas.audit import AnchoredAuditStore
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit
from sagas.client import TemporalUnreachableError
from sagas.codec import PayloadKeys
from sagas.ledger import Ledger
from sagas.verify import (
    LEDGER_VERIFIED_HEAD,
    LedgerVerdict,
    LedgerWitness,
    read_ledger_witness,
    verifier_keys,
    verify_ledger,
)

app = typer.Typer(name="ledger", help="The double-entry ledger.", no_args_is_help=True)


@app.command()
def verify(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Journal chain, signatures, anchors, this verifier's memory and every entry's witness in
    Temporal or the audit trail; entries balance, balances and holds match their postings;
    exit 1 naming the first bad entry."""
    invocation = Invocation.of(ctx).scanning()
    verdict = ledger_verdict(invocation)
    emit(_shown(verdict, invocation.settings.temporal_address), output)
    if not verdict.ok:
        raise typer.Exit(FAILURE)


def ledger_verdict(invocation: Invocation) -> LedgerVerdict:
    """The configured ledger verified against the configured anchor store and public keys,
    this verifier's memory, and Temporal when it answers."""
    keys = verifier_keys(invocation.settings)
    store = invocation.audit(keys)
    witness = invocation.run(ledger_witness_or_none(invocation, store, invocation.ledger()))
    return verify_ledger(
        invocation.ledger(),
        store.anchors,
        keys.keyring,
        witness=witness,
        memory=LEDGER_VERIFIED_HEAD,
    )


async def ledger_witness_or_none(
    invocation: Invocation, store: AnchoredAuditStore, ledger: Ledger
) -> LedgerWitness | None:
    """The journal, Temporal's ledger receipts and the verified audit records; None when
    Temporal does not answer."""
    try:
        temporal = await invocation.temporal()
    except TemporalUnreachableError:
        return None
    settings = invocation.settings
    keys = PayloadKeys.parse(settings.payload_keys.get_secret_value())
    return await read_ledger_witness(
        temporal, settings.task_queue, store, ledger, keys, anchors=store.anchors
    )


def _shown(verdict: LedgerVerdict, address: str) -> Shown:
    data = {
        "ok": verdict.ok,
        "entries": verdict.entries,
        "unsealed": verdict.unsealed,
        "head_hash": verdict.head.entry_hash,
        "anchored_at": verdict.anchored_at,
        "temporal_compared": verdict.temporal_compared,
        "awaiting_witness": verdict.awaiting_witness,
        "findings": verdict.findings,
    }
    lines = (
        []
        if verdict.temporal_compared
        else [f"note: Temporal at {address} not reachable: entries not compared with witnesses"]
    )
    if verdict.awaiting_witness:
        lines.append(
            f"note: {verdict.awaiting_witness} entries of sagas with a step under way are not "
            "judged yet: verify again once it ends"
        )
    if verdict.ok:
        anchored = (
            f"anchored at entry {verdict.anchored_at}"
            if verdict.anchored_at is not None
            else "no anchor yet"
        )
        witnessed = (
            "; every entry witnessed by Temporal or the audit trail"
            if verdict.temporal_compared
            else ""
        )
        unsealed = f" ({verdict.unsealed} more not sealed yet)" if verdict.unsealed else ""
        lines.append(
            f"ledger intact: {verdict.entries} entries chained{unsealed}, {anchored}; each "
            "balanced per "
            f"currency; every balance and hold matches its postings{witnessed}"
        )
        return Shown(data, lines=lines)
    first, *more = verdict.findings
    lines += [f"ledger BROKEN: {first}", *(f"  also: {m}" for m in more)]
    return Shown(data, lines=lines)
