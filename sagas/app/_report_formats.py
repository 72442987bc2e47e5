"""The compensation audit as a table, JSON, CSV or one HTML page with findings first."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
from typing import Any

from sagas.app._compensation_audit import CompensationAudit

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


def as_json(report: CompensationAudit) -> str:
    chain = report.chain
    return json.dumps(
        {
            "ok": report.ok,
            "findings": report.findings,
            "chain": dataclasses.asdict(chain) if chain else None,
            "sagas": _rows(report),
        },
        indent=2,
        default=str,
    )


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


def as_table(report: CompensationAudit) -> str:
    lines = [f"FINDING  {f}" for f in report.findings] or ["no findings"]
    chain = report.chain
    if chain is not None:
        lines.append(f"audit chain: {'intact' if chain.ok else 'BROKEN'}, {chain.records} records")
    short = ["saga_id", "status", "amount", "failed_step", "ledger_check", "compensations"]
    rows = [[r[c] for c in short] for r in _rows(report)]
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(short)]
    lines.append("  ".join(h.ljust(w) for h, w in zip(short, widths, strict=True)).rstrip())
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


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


FORMATS = {"table": as_table, "json": as_json, "csv": as_csv, "html": as_html}
