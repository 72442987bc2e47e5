"""`fundsaga audit compensations`: every saga that did not complete, proven against the ledger,
the audit trail and Temporal."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from sagas.audit import witness_findings
from sagas.cli._audit import witnessed_or_none
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._ledger import ledger_witness_or_none
from sagas.cli._output import OutputFormat, Shown, emit, said, write_out
from sagas.cli._report_formats import ReportFormat, report_text
from sagas.client import TemporalUnreachableError
from sagas.engine import SagaStatus
from sagas.foundations import InvalidRequestError
from sagas.verify import (
    AUDITED,
    LEDGER_VERIFIED_HEAD,
    CompensationAudit,
    run_compensation_audit,
    verifier_keys,
    verify_ledger,
    verify_trail,
)


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
    file: Annotated[Path | None, typer.Option(help="Write the report there.")] = None,
) -> None:
    """Prove every saga that did not complete from the ledger, the trail and Temporal.

    Every compensated, parked, resolved or rejected saga; exit 1 on any finding.
    """
    if status is not None and status not in AUDITED:
        raise InvalidRequestError("--status", f"{status} sagas are not audited")
    report = _audit(Invocation.of(ctx), status, since, until)
    text = report_text(report, output, terminal=file is None and sys.stdout.isatty())
    if file is None:
        write_out(text)
    else:
        file.write_text(text, encoding="utf-8")
        said_as = OutputFormat.JSON if output is ReportFormat.JSON else OutputFormat.TABLE
        emit(_written(report, output, file), said_as)
    if not report.ok:
        raise typer.Exit(FAILURE)


def _audit(
    invocation: Invocation,
    status: SagaStatus | None,
    since: datetime | None,
    until: datetime | None,
) -> CompensationAudit:
    keys = verifier_keys(invocation.settings)
    store = invocation.audit(keys)
    trail = verify_trail(store, None)
    witnessed = invocation.run(witnessed_or_none(invocation))
    report = run_compensation_audit(
        invocation.ledger(),
        store,
        invocation.run(_temporal_statuses(invocation)),
        since=since,
        until=until,
        status=status,
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
    report.findings[:0] = first
    return report


async def _temporal_statuses(invocation: Invocation) -> dict[str, str] | None:
    """SagaStatus per saga id of this task queue, as Temporal lists it (a killed saga as KILLED,
    or as its recovery left it); None if unreachable."""
    try:
        client = await invocation.client()
    except TemporalUnreachableError:
        return None
    return {saga: status for saga, _, status in await client.list_sagas()}


def _written(report: CompensationAudit, output: ReportFormat, file: Path) -> Shown:
    verdict = "no findings" if report.ok else f"{len(report.findings)} finding(s)"
    line = f"compensation audit ({output}) written to {file}: {len(report.sagas)} sagas, {verdict}"
    return said(line, {"file": file, "sagas": len(report.sagas), "findings": report.findings})
