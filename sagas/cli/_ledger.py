"""`fundsaga ledger ...`: the double-entry ledger, checked from its own rows, its journal
chain, its signatures, its anchors, this verifier's memory, and Temporal as its witness."""

from __future__ import annotations

from typing import Annotated

import typer

from sagas.audit import AnchoredAuditStore
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit
from sagas.client import TemporalUnreachableError
from sagas.codec import PayloadKeys
from sagas.foundations import Settings
from sagas.ledger import Ledger
from sagas.verify import (
    LEDGER_VERIFIED_HEAD,
    AccountChanges,
    ActionHistories,
    LedgerVerdict,
    LedgerWitness,
    read_action_histories,
    read_ledger_witness,
    verifier_keys,
    verify_ledger,
)

app = typer.Typer(name="ledger", help="The double-entry ledger.", no_args_is_help=True)
NOT_CHECKED_OFFLINE = [
    "that the journal was not cut short (no anchor names it, no head was accepted before, "
    "Temporal did not answer)",
    "that every entry has its witness in Temporal or the audit trail",
    "that every account status change and overdraft limit has its operator action",
]
"""What a verdict accepted with --offline-ok leaves unchecked."""


OfflineOk = Annotated[
    bool,
    typer.Option(
        "--offline-ok",
        help="Accept a journal that nothing vouched for (Temporal unreachable, no anchor, no "
        "head accepted before) where anchors are configured; the report says what was not "
        "checked.",
    ),
]


@app.command()
def verify(
    ctx: typer.Context, offline_ok: OfflineOk = False, output: Output = OutputFormat.TABLE
) -> None:
    """Journal chain, signatures, anchors, this verifier's memory and every entry's witness in
    Temporal or the audit trail, every account status change's and limit's operator action; entries
    balance, balances and holds match their postings; exit 1 naming the first bad entry."""
    invocation = Invocation.of(ctx).scanning()
    verdict = ledger_verdict(invocation)
    settings = invocation.settings
    unvouched = unvouched_problem(verdict, settings)
    if unvouched is not None and not offline_ok:
        verdict.findings.append(unvouched)
    emit(_shown(verdict, settings.temporal_address, offline_ok and unvouched is not None), output)
    if not verdict.ok:
        raise typer.Exit(FAILURE)


def ledger_verdict(invocation: Invocation) -> LedgerVerdict:
    """The configured ledger verified against the configured anchor store and public keys,
    this verifier's memory, and Temporal when it answers."""
    keys = verifier_keys(invocation.settings)
    store = invocation.audit(keys)
    ledger = invocation.ledger()
    changes = AccountChanges.read(ledger)  # before Temporal: each change's action is in it then
    witness, histories = invocation.run(_witnesses(invocation, store, ledger))
    return verify_ledger(
        ledger,
        store.anchors,
        keys.keyring,
        witness=witness,
        memory=LEDGER_VERIFIED_HEAD,
        account_changes=changes,
        action_histories=histories,
    )


async def _witnesses(
    invocation: Invocation, store: AnchoredAuditStore, ledger: Ledger
) -> tuple[LedgerWitness | None, ActionHistories | None]:
    """The ledger's witness and the histories of the account actions its records name; None
    for both when Temporal does not answer."""
    witness = await ledger_witness_or_none(invocation, store, ledger)
    if witness is None:
        return None, None
    temporal = await invocation.temporal()
    return witness, await read_action_histories(temporal, witness.records)


def unvouched_problem(verdict: LedgerVerdict, settings: Settings) -> str | None:
    """Why the verdict cannot stand alone where the deployment anchors the journal: nothing
    vouched for the journal's length, so a journal cut short would verify intact."""
    if verdict.vouched or not settings.audit_anchor_minutes:
        return None
    return (
        f"nothing vouches for the journal's length: Temporal at {settings.temporal_address} is "
        "not reachable, no anchor names the journal although this deployment anchors it "
        f"(FUNDSAGA_AUDIT_ANCHOR_MINUTES={settings.audit_anchor_minutes}), and this verifier "
        "accepted no head before: a journal cut short would look intact. Verify with Temporal "
        "reachable, or pass --offline-ok to accept what was checked without it"
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


def _shown(verdict: LedgerVerdict, address: str, offline_accepted: bool) -> Shown:
    data = {
        "ok": verdict.ok,
        "entries": verdict.entries,
        "unsealed": verdict.unsealed,
        "head_hash": verdict.head.entry_hash,
        "anchored_at": verdict.anchored_at,
        "temporal_compared": verdict.temporal_compared,
        "awaiting_witness": verdict.awaiting_witness,
        "findings": verdict.findings,
        "not_checked": NOT_CHECKED_OFFLINE if offline_accepted else [],
    }
    lines = (
        []
        if verdict.temporal_compared
        else [
            f"note: Temporal at {address} not reachable: entries, account status changes and "
            "limits not compared with witnesses"
        ]
    )
    if offline_accepted:
        lines.append(f"note: --offline-ok: NOT CHECKED: {'; '.join(NOT_CHECKED_OFFLINE)}")
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
