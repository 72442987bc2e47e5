"""The evidence report as one printable HTML page that carries its own signed JSON.

Self-contained: no external asset and no script to run. The page is rendered from the signed
JSON alone, so `verify-report` renders it again and compares: a page whose visible text was
edited no longer matches its signed content.
"""

from __future__ import annotations

import re

from sagas.cli._evidence_html_parts import Cell, definitions, esc, saga_section, table
from sagas.verify import EvidencePack, EvidenceReport

EMBEDDED = re.compile(r'<script type="application/json" id="evidence">(.*?)</script>', re.DOTALL)
STYLE = """
body{font:10.5pt/1.4 system-ui,sans-serif;color:#111;max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.45em;margin:0 0 .3em}h2{font-size:1.2em;margin:1em 0 .3em}
h3{font-size:1em;margin:.9em 0 .2em}small{font-weight:400;color:#555}
.summary{border:3px solid #1a7f37;border-radius:6px;padding:.6em 1em}
.summary.failed{border-color:#cf222e;background:#fff5f5}.ok{color:#1a7f37}.fail{color:#cf222e}
p.verdict{font-weight:700}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.4em 0}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:.2em 0 .6em;font-size:.9em}
th,td{border:1px solid #bbb;padding:.15em .35em;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right;white-space:nowrap}td.lines{white-space:pre-line}
td.hash,td.key{font-family:ui-monospace,monospace;font-size:.85em;word-break:break-all}
ol.findings li{color:#cf222e;font-weight:600}p.none{color:#555;margin:.2em 0}
section.saga{border-top:2px solid #444;margin-top:1.5em}
@page{size:A4;margin:12mm}
@media print{body{max-width:none;padding:0;font-size:9pt}
section.saga{break-before:page;border-top:none;margin-top:0}
tr,.summary,dl{break-inside:avoid}thead{display:table-header-group}}
"""


def evidence_html(report: EvidenceReport) -> str:
    pack = report.pack
    css, box = ("ok", "passed") if pack.verdict.ok else ("fail", "failed")
    embedded = report.to_json()
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        embedded = embedded.replace(char, escaped)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Compensation audit: {esc(pack.verdict.summary)}</title>"
        f"<style>{STYLE}</style></head><body>"
        f'<section class="summary {box}">'
        f'<h1 class="{css}">Compensation audit: {esc(pack.verdict.summary)}</h1>'
        f"{_summary(report)}</section>"
        f"<h2>Findings</h2>{_findings(pack)}"
        f"<h2>Totals</h2>{_totals(pack)}"
        f"<h2>Rail movements and their reconciliation</h2>{_rail(pack)}"
        f"<h2>Checking this report</h2>{_how_to_check(report)}"
        + "".join(saga_section(saga) for saga in pack.sagas)
        + f'<script type="application/json" id="evidence">{embedded}</script>'
        "</body></html>\n"
    )


def embedded_json(page: str) -> str:
    """The JSON a page carries; ValueError unless it carries exactly one."""
    found = EMBEDDED.findall(page)
    if len(found) != 1:
        raise ValueError(f"the page carries {len(found)} embedded reports, not one")
    text: str = found[0]
    return text


def _summary(report: EvidenceReport) -> str:
    pack, signature = report.pack, report.signature
    scope, chains = pack.scope, pack.chains
    journal = chains.journal
    sources = scope.sources
    maker = f"{scope.made_by.os_user}@{scope.made_by.host}"
    if scope.made_by.operator:
        maker = f"{scope.made_by.operator} ({maker})"
    return definitions(
        [
            ("Verdict", pack.verdict.summary),
            ("Period", f"{scope.since or 'from the first record'} to {scope.until or 'now'}"),
            ("Statuses", ", ".join(scope.statuses)),
            ("Task queues", f"{scope.task_queue}; runs seen on {_seen(scope.task_queues_seen)}"),
            ("Made", f"{scope.made_at} by {maker}, fundsaga {scope.fundsaga_version}"),
            ("Ledger", sources.database),
            ("Audit store", f"{sources.audit_store}; anchors {sources.anchor_store}"),
            ("Temporal", f"{sources.temporal_address}, namespace {sources.temporal_namespace}"),
            ("Audit chain", _audit_chain(pack)),
            ("Ledger journal", _journal(pack)),
            ("Journal signed by", ", ".join(journal.key_ids) or "no key"),
            (
                "Signature",
                "NOT SIGNED"
                if signature is None
                else f"Ed25519 by key {signature.key_id} over the embedded JSON",
            ),
        ]
    )


def _seen(queues: list[str]) -> str:
    return ", ".join(queues) or "none (Temporal not asked)"


def _ok(ok: bool) -> str:
    return "intact" if ok else "BROKEN"


def _audit_chain(pack: EvidencePack) -> str:
    audit = pack.chains.audit
    anchor = audit.latest_anchor
    anchored = (
        "no anchor"
        if anchor is None
        else f"latest anchor at record {anchor.sequence} (key {anchor.record.key_id})"
    )
    return (
        f"{_ok(audit.ok)}, {audit.records} records, head {audit.head_sequence} "
        f"({audit.head_hash}), {anchored}"
    )


def _journal(pack: EvidencePack) -> str:
    journal = pack.chains.journal
    anchor = journal.latest_anchor
    anchored = (
        "no anchor"
        if anchor is None
        else f"latest anchor at entry {anchor.sequence} (key {anchor.record.key_id})"
    )
    return (
        f"{_ok(journal.ok)}, sealed to entry {journal.sealed_head_sequence} "
        f"({journal.sealed_head_hash}), {journal.unsealed} not sealed yet, {anchored}"
    )


def _findings(pack: EvidencePack) -> str:
    if not pack.findings:
        return '<p class="ok">None.</p>'
    return '<ol class="findings">' + "".join(f"<li>{esc(f)}</li>" for f in pack.findings) + "</ol>"


def _totals(pack: EvidencePack) -> str:
    rows: list[list[Cell]] = [
        [t.currency or "-", t.status, ("num", str(t.sagas)), ("num", t.moved)] for t in pack.totals
    ]
    return table(["Currency", "Status", "Sagas", "Moved"], rows)


def _rail(pack: EvidencePack) -> str:
    if not pack.rail_movements:
        return "<p>None in the period.</p>"
    rows: list[list[Cell]] = [
        [
            ("num", str(m.entry_id)),
            m.saga_id,
            m.step,
            m.end_to_end_id,
            ("num", m.amount),
            m.booked_at,
            m.reconciliation,
        ]
        for m in pack.rail_movements
    ]
    header = ["Entry", "Saga", "Step", "End-to-end id", "Amount", "Booked", "Reconciliation"]
    return table(header, rows)


def _how_to_check(report: EvidenceReport) -> str:
    who = "unsigned" if report.signature is None else f"signed by key {report.signature.key_id}"
    return (
        f"<p>This page embeds its report as JSON ({esc(who)}). Each audit record's signed "
        "content, each journal entry's postings and every signature can be checked with the "
        "public keys alone: <code>fundsaga audit verify-report FILE --public-key KEY.pub</code>."
        "</p>"
    )
