"""The compensation audit's evidence report as a table, its signed JSON, CSV, or one HTML page,
findings first in each."""

from __future__ import annotations

import csv
import io
from enum import StrEnum

from sagas.cli._evidence_html import evidence_html
from sagas.cli._output import OutputFormat, Shown, render
from sagas.verify import EvidencePack, EvidenceReport, SagaEvidence


class ReportFormat(StrEnum):
    TABLE = "table"  # findings first, the chains, then one line per saga, for people
    JSON = "json"  # the signed evidence report itself, for programs and auditors
    CSV = "csv"  # one row per saga, then the findings tied to none
    HTML = "html"  # one printable page carrying its signed JSON


COLUMNS = [
    "saga_id",
    "status",
    "recorded_at",
    "amount",
    "requested",
    "saga_type",
    "failed_step",
    "error",
    "compensations",
    "ledger_check",
    "entries",
    "task_queues",
]


def shown_amount(saga: SagaEvidence) -> str:
    """What the ledger moved; when nothing, the amount requested, said to be unmoved."""
    if saga.moved is not None:
        return saga.moved
    return f"{saga.requested} requested, not moved" if saga.requested else ""


def _row(saga: SagaEvidence) -> dict[str, str]:
    return {
        "saga_id": saga.saga_id,
        "status": saga.status,
        "recorded_at": saga.recorded_at,
        "amount": shown_amount(saga),
        "requested": saga.requested or "",
        "saga_type": saga.saga_type,
        "failed_step": saga.failed_step,
        "error": saga.error,
        "compensations": "; ".join(saga.compensations),
        "ledger_check": saga.verdict.reason,
        "entries": " ".join(str(entry.entry_id) for entry in saga.entries),
        "task_queues": " ".join(sorted({run.task_queue for run in saga.temporal_runs})),
    }


def as_csv(pack: EvidencePack) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*COLUMNS, "finding"])
    writer.writeheader()
    for saga in pack.sagas:
        finding = "" if saga.verdict.ok else saga.verdict.reason
        writer.writerow({**_row(saga), "finding": finding})
    for finding in pack.findings:
        if not any(finding.startswith(f"{saga.saga_id}: ") for saga in pack.sagas):
            writer.writerow({"saga_id": "", "finding": finding})
    return out.getvalue()


def report_text(
    report: EvidenceReport, form: ReportFormat, *, terminal: bool = False, unsigned: str = ""
) -> str:
    """`unsigned`: why the report carries no signature, for the table."""
    if form is ReportFormat.CSV:
        return as_csv(report.pack)
    if form is ReportFormat.HTML:
        return evidence_html(report)
    if form is ReportFormat.JSON:
        return report.to_json()
    return render(report_shown(report, unsigned), OutputFormat.TABLE, terminal=terminal)


def report_shown(report: EvidenceReport, unsigned: str = "") -> Shown:
    """Findings first, the chains and the signature, then the sagas an auditor reads."""
    pack = report.pack
    audit, journal = pack.chains.audit, pack.chains.journal
    lines = [f"FINDING  {f}" for f in pack.findings] or ["no findings"]
    lines.append(
        f"audit chain: {'intact' if audit.ok else 'BROKEN'}, {audit.records} records, "
        f"head {audit.head_sequence}"
    )
    lines.append(
        f"ledger journal: {'intact' if journal.ok else 'BROKEN'}, sealed to entry "
        f"{journal.sealed_head_sequence}, {journal.unsealed} not sealed yet"
    )
    lines.append(f"task queues seen: {', '.join(pack.scope.task_queues_seen) or 'none'}")
    signature = report.signature
    lines.append(
        f"signed by {signature.key_id}"
        if signature is not None
        else f"not signed: {unsigned or 'no signing key'}"
    )
    short = ("saga_id", "status", "amount", "failed_step", "ledger_check", "entries")
    rows = [[_row(saga)[c] for c in short] for saga in pack.sagas]
    return Shown(report.document(), lines=lines, columns=short, rows=rows)
