"""The compensation audit as a table, JSON, CSV or one HTML page with findings first."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
from enum import StrEnum
from typing import Any

from sagas.cli._output import OutputFormat, Shown, render
from sagas.verify import CompensationAudit


class ReportFormat(StrEnum):
    TABLE = "table"  # findings first, then one line per saga, for people
    JSON = "json"  # for programs
    CSV = "csv"  # one row per saga, then the findings tied to none
    HTML = "html"  # one page, findings first


COLUMNS = [
    "saga_id",
    "status",
    "recorded_at",
    "amount",
    "failed_step",
    "error",
    "compensations",
    "ledger_check",
]


def _rows(report: CompensationAudit) -> list[dict[str, str]]:
    rows = []
    for saga in report.sagas:
        fields: dict[str, Any] = dataclasses.asdict(saga)
        rows.append({c: str(fields[c]) for c in COLUMNS})
    return rows


def as_csv(report: CompensationAudit) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*COLUMNS, "finding"])
    writer.writeheader()
    for saga, row in zip(report.sagas, _rows(report), strict=True):
        writer.writerow({**row, "finding": saga.finding or ""})
    for finding in report.findings:
        if not any(finding == s.finding for s in report.sagas):
            writer.writerow({"saga_id": "", "finding": finding})
    return out.getvalue()


def as_html(report: CompensationAudit) -> str:
    def cell(text: str, tag: str = "td") -> str:
        return f"<{tag}>{html.escape(text)}</{tag}>"

    header = "".join(cell(c, "th") for c in ["finding", *COLUMNS])
    body = [
        f'<tr class="finding"><td colspan="{len(COLUMNS) + 1}">{html.escape(f)}</td></tr>'
        for f in report.findings
    ]
    for saga, row in zip(report.sagas, _rows(report), strict=True):
        body.append(
            "<tr>" + cell(saga.finding or "") + "".join(cell(row[c]) for c in COLUMNS) + "</tr>"
        )
    verdict = "no findings" if report.ok else f"{len(report.findings)} finding(s)"
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Compensation audit</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:4px;vertical-align:top}"
        "tr.finding td{background:#fdd;font-weight:bold}</style></head><body>"
        f"<h1>Compensation audit: {html.escape(verdict)}</h1>"
        f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        "</body></html>\n"
    )


def report_text(report: CompensationAudit, form: ReportFormat, *, terminal: bool = False) -> str:
    if form is ReportFormat.CSV:
        return as_csv(report)
    if form is ReportFormat.HTML:
        return as_html(report)
    return render(report_shown(report), OutputFormat(form.value), terminal=terminal)


def report_shown(report: CompensationAudit) -> Shown:
    """Findings first, the chain's state, then the sagas in the columns an auditor reads."""
    chain = report.chain
    sagas = _rows(report)
    data = {
        "ok": report.ok,
        "findings": report.findings,
        "chain": dataclasses.asdict(chain) if chain else None,
        "sagas": sagas,
    }
    lines = [f"FINDING  {f}" for f in report.findings] or ["no findings"]
    if chain is not None:
        lines.append(f"audit chain: {'intact' if chain.ok else 'BROKEN'}, {chain.records} records")
    short = ("saga_id", "status", "amount", "failed_step", "ledger_check", "compensations")
    rows = [[row[c] for c in short] for row in sagas]
    return Shown(data, lines=lines, columns=short, rows=rows)
