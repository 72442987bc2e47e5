"""`fundsaga audit compensations`: every saga that did not complete, proven against the ledger,
the audit trail and Temporal, as a signed evidence report."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from sagas.audit import AuditStore, witness_findings
from sagas.cli._audit import witnessed_or_none
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._ledger import ledger_witness_or_none
from sagas.cli._options import ReportFile, ReportMaker, ReportSignKey
from sagas.cli._output import OutputFormat, Shown, emit, said, write_out
from sagas.cli._reconcile import reconciliation
from sagas.cli._report_formats import ReportFormat, report_text
from sagas.cli._report_signer import report_signer
from sagas.client import TemporalUnreachableError
from sagas.codec import PayloadKeys
from sagas.engine import SagaStatus
from sagas.foundations import InvalidRequestError
from sagas.reconcile import CLOSED_STATUSES, MovementStatus
from sagas.verify import (
    AUDITED,
    LEDGER_VERIFIED_HEAD,
    EvidencePack,
    EvidenceReport,
    PackRequest,
    RailMovementEvidence,
    TemporalRun,
    build_evidence_pack,
    run_compensation_audit,
    run_statuses,
    saga_runs,
    shown_statuses,
    sign_pack,
    sources_of,
    verifier_keys,
    verify_ledger,
    verify_trail,
)

Temporal = tuple[dict[str, str], dict[str, list[TemporalRun]]]
"""SagaStatus per saga id as Temporal shows it, and each audited saga's runs."""


def _timestamp(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise typer.BadParameter(f"{text!r} needs a time zone, e.g. Z")
    return parsed


def compensations(
    ctx: typer.Context,
    since: Annotated[
        datetime | None,
        typer.Option(parser=_timestamp, metavar="ISO8601", help="e.g. 2026-11-01T00:00Z"),
    ] = None,
    until: Annotated[
        datetime | None, typer.Option(parser=_timestamp, metavar="ISO8601", help="Up to then.")
    ] = None,
    status: Annotated[
        SagaStatus | None,
        typer.Option(
            "--status",
            "-s",
            help="COMPENSATED, NEEDS_ATTENTION, RESOLVED or REJECTED.",
            case_sensitive=False,
        ),
    ] = None,
    output: Annotated[
        ReportFormat,
        typer.Option("--output", "-o", help="Table or json as everywhere; csv or html to keep."),
    ] = ReportFormat.TABLE,
    file: ReportFile = None,
    by: ReportMaker = None,
    sign_key: ReportSignKey = None,
) -> None:
    """Prove every saga that did not complete from the ledger, the trail and Temporal.

    Every compensated, parked, resolved or rejected saga, with the journal entries, holds and
    audit records that prove it, signed; exit 1 on any finding.
    """
    if status is not None and status not in AUDITED:
        raise InvalidRequestError("--status", f"{status} sagas are not audited")
    invocation = Invocation.of(ctx).scanning()
    signer, unsigned = report_signer(invocation.settings, sign_key)
    request = PackRequest(
        since=since,
        until=until,
        statuses=[status.value] if status else [s.value for s in AUDITED],
        task_queue=invocation.settings.task_queue,
        sources=sources_of(invocation.settings),
        operator=by,
    )
    report = sign_pack(_pack(invocation, status, request), signer)
    terminal = file is None and sys.stdout.isatty()
    text = report_text(report, output, terminal=terminal, unsigned=unsigned)
    if file is None:
        write_out(text)
    else:
        file.write_text(text, encoding="utf-8")
        said_as = OutputFormat.JSON if output is ReportFormat.JSON else OutputFormat.TABLE
        emit(_written(report, output, file, unsigned), said_as)
    if not report.pack.verdict.ok:
        raise typer.Exit(FAILURE)


def _pack(invocation: Invocation, status: SagaStatus | None, request: PackRequest) -> EvidencePack:
    settings = invocation.settings
    keys = verifier_keys(settings)
    store = invocation.audit(keys)
    trail = verify_trail(store, None)
    witnessed = invocation.run(witnessed_or_none(invocation))
    temporal = invocation.run(_temporal(invocation, store))
    audit = run_compensation_audit(
        invocation.ledger(),
        store,
        None if temporal is None else temporal[0],
        since=request.since,
        until=request.until,
        status=status,
        payload_keys=PayloadKeys.parse(settings.payload_keys.get_secret_value()),
        run_statuses=None if temporal is None else run_statuses(temporal[1]),
    )
    first = [f"audit trail: {finding}" for finding in trail.findings]
    ledger = verify_ledger(
        invocation.ledger(),
        store.anchors,
        keys.keyring,
        witness=invocation.run(ledger_witness_or_none(invocation, store, invocation.ledger())),
        memory=LEDGER_VERIFIED_HEAD,
    )
    first += [f"ledger: {finding}" for finding in ledger.findings]
    if witnessed is not None:
        first += witness_findings(store.records(), witnessed)
    books = reconciliation(invocation)
    first += [
        f"reconciliation: break {b.break_id} {b.kind} ({b.status}): {b.detail}"
        for b in books.breaks()
        if b.status not in CLOSED_STATUSES
    ]
    audit.findings[:0] = first
    runs = {} if temporal is None else temporal[1]
    movements = [m for m in books.movements() if _in_period(m.movement.booked_at, request)]
    rail_status = {m.movement.entry_id: m.status for m in movements}
    return build_evidence_pack(
        audit,
        invocation.ledger(),
        store,
        request,
        trail=trail,
        journal=ledger,
        runs=runs,
        rail_status=rail_status,
        rail_movements=[_rail_evidence(m) for m in movements],
    )


def _in_period(at: datetime, request: PackRequest) -> bool:
    return (request.since is None or at >= request.since) and (
        request.until is None or at <= request.until
    )


def _rail_evidence(status: MovementStatus) -> RailMovementEvidence:
    movement = status.movement
    return RailMovementEvidence(
        entry_id=movement.entry_id,
        entry_hash=movement.entry_hash,
        saga_id=movement.saga_id,
        step=movement.step,
        end_to_end_id=movement.reference,
        amount=str(movement.amount),
        booked_at=movement.booked_at.isoformat(),
        reconciliation=status.status,
    )


async def _temporal(invocation: Invocation, store: AuditStore) -> Temporal | None:
    """This task queue's sagas as the client lists them (a killed saga as KILLED, or as its
    recovery left it), and every run of each audited saga on any task queue, whose status
    stands for sagas that ran on another; None if unreachable."""
    try:
        client = await invocation.client()
    except TemporalUnreachableError:
        return None
    listed = {saga: status for saga, _, status in await client.list_sagas()}
    runs = await saga_runs(client.temporal, store)
    return {**shown_statuses(runs), **listed}, runs


def _written(report: EvidenceReport, output: ReportFormat, file: Path, unsigned: str) -> Shown:
    pack = report.pack
    verdict = "no findings" if pack.verdict.ok else f"{len(pack.findings)} finding(s)"
    signature = report.signature
    signed = f"signed by {signature.key_id}" if signature else f"not signed: {unsigned}"
    line = (
        f"compensation audit ({output}) written to {file}: {len(pack.sagas)} sagas, "
        f"{verdict}, {signed}"
    )
    facts = {
        "file": file,
        "sagas": len(pack.sagas),
        "findings": pack.findings,
        "signed_by": None if signature is None else signature.key_id,
        "not_signed": unsigned if signature is None else None,
    }
    return said(line, facts)
