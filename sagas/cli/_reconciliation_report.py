"""`fundsaga reconcile report`: the reconciliation pack of a period, signed: the statement
inventory, every line with its match or its break, the break register with each operator's
act, and the proof of cash per account and currency. Exit 1 on any finding."""

from __future__ import annotations

import sys
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._options import ReportFile, ReportMaker, ReportSignKey
from sagas.cli._output import OutputFormat, Shown, emit, render, said, write_out
from sagas.cli._reconcile import reconciliation
from sagas.cli._reconciliation_html import reconciliation_html
from sagas.cli._reconciliation_text import pack_lines
from sagas.cli._report_signer import report_signer
from sagas.codec import PayloadKeys
from sagas.foundations import InvalidRequestError
from sagas.reconcile import PeriodScope
from sagas.verify import (
    LEDGER_VERIFIED_HEAD,
    ReconciliationPack,
    ReconciliationReport,
    ReconciliationRequest,
    build_reconciliation_pack,
    sign_reconciliation,
    sources_of,
    verifier_keys,
    verify_ledger,
    verify_trail,
)


class PackFormat(StrEnum):
    TEXT = "text"  # findings first, then inventory, lines, register and proofs, for people
    TABLE = "table"  # the same as text: the word every other command uses for it
    JSON = "json"  # the signed report itself, for programs and auditors
    HTML = "html"  # one printable page carrying its signed JSON


def report(
    ctx: typer.Context,
    since: Annotated[
        str | None,
        typer.Option("--from", metavar="DATE", help="The first booking day, e.g. 2026-11-01."),
    ] = None,
    until: Annotated[
        str | None, typer.Option("--to", metavar="DATE", help="The last booking day.")
    ] = None,
    account: Annotated[
        list[str] | None,
        typer.Option(
            "--account", metavar="ACCOUNT", help="Only this rail account's statements; repeat."
        ),
    ] = None,
    output: Annotated[
        PackFormat,
        typer.Option("--output", "-o", help="Text for people, json or html to keep."),
    ] = PackFormat.TEXT,
    file: ReportFile = None,
    by: ReportMaker = None,
    sign_key: ReportSignKey = None,
) -> None:
    """The reconciliation pack of a period, signed, as a bank's auditor reads it.

    Every statement whose booking days meet the period, shown whole: each file with its SHA-256
    and its import's signed record, each line at its place with its match (journal entry, saga,
    method) or its break; the breaks of the period with their age and each operator's act (the
    verified operator and their own note) and the adjusting entries; the proof of cash per
    account and currency. `fundsaga audit verify-report FILE --kind reconciliation` checks it
    offline. Exit 1 on any finding (a break not closed, a proof that does not balance).
    """
    scope = PeriodScope(
        since=_day("--from", since),
        until=_day("--to", until),
        accounts=frozenset(account or ()),
    )
    invocation = Invocation.of(ctx).scanning()
    signer, unsigned = report_signer(invocation.settings, sign_key)
    report = sign_reconciliation(_pack(invocation, scope, by), signer)
    text = _text(report, output, unsigned, terminal=file is None and sys.stdout.isatty())
    if file is None:
        write_out(text)
    else:
        file.write_text(text, encoding="utf-8")
        said_as = OutputFormat.JSON if output is PackFormat.JSON else OutputFormat.TABLE
        emit(_written(report, output, file, unsigned), said_as)
    if not report.pack.verdict.ok:
        raise typer.Exit(FAILURE)


def _day(option: str, text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidRequestError(option, f"{text!r} is not a day such as 2026-11-03") from None


def _pack(invocation: Invocation, scope: PeriodScope, by: str | None) -> ReconciliationPack:
    settings = invocation.settings
    keys = verifier_keys(settings)
    store = invocation.audit(keys)
    ledger = invocation.ledger()
    journal = verify_ledger(ledger, store.anchors, keys.keyring, memory=LEDGER_VERIFIED_HEAD)
    return build_reconciliation_pack(
        reconciliation(invocation),
        store,
        ReconciliationRequest(scope=scope, sources=sources_of(settings), operator=by),
        trail=verify_trail(store, None),
        journal=journal,
        payload_keys=PayloadKeys.parse(settings.payload_keys.get_secret_value()),
    )


def _text(
    report: ReconciliationReport, output: PackFormat, unsigned: str, *, terminal: bool
) -> str:
    if output is PackFormat.JSON:
        return report.to_json()
    if output is PackFormat.HTML:
        return reconciliation_html(report)
    shown = Shown(report.document(), lines=pack_lines(report, unsigned))
    return render(shown, OutputFormat.TABLE, terminal=terminal)


def _written(report: ReconciliationReport, output: PackFormat, file: Path, unsigned: str) -> Shown:
    pack = report.pack
    signature = report.signature
    signed = f"signed by {signature.key_id}" if signature else f"not signed: {unsigned}"
    balanced = all(proof.balances for proof in pack.proofs)
    proofs = f"{len(pack.proofs)} account proof(s) {'balance' if balanced else 'DO NOT BALANCE'}"
    line = (
        f"reconciliation pack ({output}) written to {file}: {pack.verdict.summary}; {proofs}; "
        f"{signed}"
    )
    facts = {
        "file": file,
        "statements": sum(len(f.statements) for f in pack.files),
        "breaks": len(pack.breaks),
        "proofs_balance": balanced,
        "findings": pack.findings,
        "signed_by": None if signature is None else signature.key_id,
        "not_signed": unsigned if signature is None else None,
    }
    return said(line, facts)
