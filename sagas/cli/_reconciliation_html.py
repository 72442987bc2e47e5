"""The reconciliation pack as one printable HTML page that carries its own signed JSON, as the
compensation audit's page does: rendered from that JSON alone, so `verify-report` renders it
again and compares, and a page whose visible text was edited no longer matches."""

from __future__ import annotations

from collections.abc import Sequence

from sagas.cli._evidence_html import STYLE
from sagas.cli._evidence_html_parts import Cell, definitions, esc, table
from sagas.cli._reconciliation_text import batch_lines, match_text, returned, who
from sagas.verify import (
    AccountProof,
    BreakEvidence,
    FileEvidence,
    ProofItemEvidence,
    ReconciliationReport,
    StatementEvidence,
    StatementProof,
)


def reconciliation_html(report: ReconciliationReport) -> str:
    pack = report.pack
    css, box = ("ok", "passed") if pack.verdict.ok else ("fail", "failed")
    embedded = report.to_json()
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        embedded = embedded.replace(char, escaped)
    summary = esc(pack.verdict.summary)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Reconciliation pack: {summary}</title>"
        f"<style>{STYLE}</style></head><body>"
        f'<section class="summary {box}">'
        f'<h1 class="{css}">Reconciliation pack: {summary}</h1>{_summary(report)}</section>'
        f"<h2>Findings</h2>{_findings(pack.findings)}"
        "<h2>Statement inventory</h2>"
        + ("".join(_file(file) for file in pack.files) or '<p class="none">None.</p>')
        + f"<h2>Break register</h2>{_register(pack.breaks)}"
        + "".join(_acts(found) for found in pack.breaks if found.acts or found.adjustment)
        + "<h2>Proof of cash</h2>"
        + ("".join(_account(proof) for proof in pack.proofs) or '<p class="none">None.</p>')
        + f"<h2>Checking this report</h2>{_how_to_check(report)}"
        f'<script type="application/json" id="evidence">{embedded}</script>'
        "</body></html>\n"
    )


def _summary(report: ReconciliationReport) -> str:
    pack, signature = report.pack, report.signature
    scope, chains = pack.scope, pack.chains
    maker = f"{scope.made_by.os_user}@{scope.made_by.host}"
    if scope.made_by.operator:
        maker = f"{scope.made_by.operator} ({maker})"
    return definitions(
        [
            ("Verdict", pack.verdict.summary),
            (
                "Period",
                f"{scope.since or 'from the first statement'} to {scope.until or 'the last'}",
            ),
            ("Accounts", ", ".join(scope.accounts) or "every one"),
            ("Ages as of", f"{scope.as_of} (the database's clock)"),
            ("Made", f"{scope.made_at} by {maker}, fundsaga {scope.fundsaga_version}"),
            ("Ledger", scope.sources.database),
            ("Audit store", f"{scope.sources.audit_store}; anchors {scope.sources.anchor_store}"),
            (
                "Audit chain",
                f"{'intact' if chains.audit.ok else 'BROKEN'}, {chains.audit.records} records, "
                f"head {chains.audit.head_sequence}",
            ),
            (
                "Ledger journal",
                f"{'intact' if chains.journal.ok else 'BROKEN'}, sealed to entry "
                f"{chains.journal.sealed_head_sequence}, {chains.journal.unsealed} not sealed yet",
            ),
            (
                "Signature",
                "NOT SIGNED"
                if signature is None
                else f"Ed25519 by key {signature.key_id} over the embedded JSON",
            ),
        ]
    )


def _findings(findings: Sequence[str]) -> str:
    if not findings:
        return '<p class="ok">None.</p>'
    return '<ol class="findings">' + "".join(f"<li>{esc(f)}</li>" for f in findings) + "</ol>"


def _file(file: FileEvidence) -> str:
    record = file.import_record
    facts = definitions(
        [
            ("SHA-256", file.sha256),
            ("Format", file.format),
            ("Imported", f"{file.imported_at} by {file.imported_by}"),
            ("Verified importer", who(file.verified_importer) if file.verified_importer else "-"),
            ("Action", file.action_id or "NONE"),
            ("Import record", "NONE" if record is None else f"{record.sequence} ({record.hash})"),
        ]
    )
    statements = "".join(_statement(statement) for statement in file.statements)
    return f"<h3>File {file.file_id}: {esc(file.name)}</h3>{facts}{statements}"


def _statement(statement: StatementEvidence) -> str:
    counts = statement.counts
    facts = definitions(
        [
            ("Account", f"{statement.account} ({statement.currency})"),
            ("Period", f"{statement.period_start or '?'} to {statement.period_end or '?'}"),
            ("Opening", f"{statement.opening or 'none'} ({statement.opening_date or '-'})"),
            ("Closing", f"{statement.closing or 'none'} ({statement.closing_date or '-'})"),
            (
                "Lines",
                f"{counts.read} read = {counts.new} new + {counts.known} known + "
                f"{counts.refused} refused",
            ),
            ("Its balances", ", ".join(f"break {n}" for n in statement.breaks) or "no break"),
        ]
    )
    rows: list[list[Cell]] = []
    for line in statement.lines:
        shown = match_text(line.match, line.breaks) if line.status != "known" else "see its file"
        rows.append(
            [
                ("num", str(line.position)),
                line.status,
                ("num", "-" if line.line_id is None else str(line.line_id)),
                line.bank_reference or "-",
                ("key", line.end_to_end_id or "-"),
                f"{line.direction or '-'} {line.kind or ''}{returned(line)}".strip(),
                ("num", line.amount or "-"),
                line.booking_date or "-",
                ("lines", "\n".join([shown, *batch_lines(line)])),
            ]
        )
    header = ["#", "Status", "Line", "Bank ref", "End-to-end id", "Kind", "Amount", "Booked"]
    return (
        f"<h3>Statement {statement.position}: {esc(statement.statement_id)}</h3>{facts}"
        f"{table([*header, 'Match or break'], rows)}"
    )


def _register(breaks: Sequence[BreakEvidence]) -> str:
    rows: list[list[Cell]] = [
        [
            ("num", str(b.break_id)),
            b.kind,
            b.status,
            ("num", b.difference or "-"),
            b.opened_at,
            b.closed_at or "NOT CLOSED",
            ("num", f"{b.age_seconds // 3600} h"),
            b.detail,
        ]
        for b in breaks
    ]
    header = ["Break", "Kind", "Status", "Difference", "Opened", "Closed", "Age", "Detail"]
    return table(header, rows)


def _acts(found: BreakEvidence) -> str:
    rows: list[list[Cell]] = [
        [
            act.act,
            act.at,
            who(act.operator),
            "(none of theirs recorded)" if act.note is None else act.note,
            act.evidence or "-",
            ("num", str(act.record.sequence)),
        ]
        for act in found.acts
    ]
    adjusting = found.adjustment
    entry = ""
    if adjusting is not None:
        legs = "; ".join(f"{leg.account_id} {leg.amount}" for leg in adjusting.postings)
        entry = definitions(
            [
                ("Adjusting entry", f"{adjusting.entry_id} ({adjusting.idempotency_key})"),
                ("Postings", legs),
                ("Entry hash", adjusting.entry_hash),
            ]
        )
    header = ["Act", "At", "Operator (issuer / subject)", "Their note", "Evidence", "Record"]
    return f"<h3>Break {found.break_id}: its acts</h3>{table(header, rows)}{entry}"


def _account(account: AccountProof) -> str:
    verdict = "balances" if account.balances else "DOES NOT BALANCE"
    chained = "chained" if account.chained else "NOT CHAINED"
    facts = definitions(
        [
            ("Verdict", f"{verdict} ({chained})"),
            (
                "Statements",
                f"opening {account.opening} + movements {account.movements} = closing "
                f"{account.closing}",
            ),
        ]
    )
    proofs = "".join(_proof(proof) for proof in account.statements)
    return f"<h3>Account {esc(account.account)} ({esc(account.currency)})</h3>{facts}{proofs}"


def _proof(proof: StatementProof) -> str:
    verdict = "balances" if proof.balances else "DOES NOT BALANCE"
    figures = definitions(
        [
            ("Statement", f"{proof.statement_id} ({proof.place}): {verdict}"),
            (
                "Statement side",
                f"opening {proof.opening} + lines {proof.statement_lines}; closing {proof.closing}",
            ),
            (
                "Ledger side",
                f"opening {proof.opening} + rail movements {proof.ledger_movements} = "
                f"{proof.ledger_balance}",
            ),
            ("Difference", f"{proof.difference}, explained {proof.explained}"),
        ]
    )
    rows = [
        _item(sign, item)
        for sign, items in (
            ("+ line no movement explains", proof.unmatched_lines),
            ("- movement no line books", proof.unmatched_movements),
            ("+ amounts differ", proof.amount_differences),
            ("+ charge on top", proof.charges),
        )
        for item in items
    ]
    return figures + table(["Item", "Line or entry", "Reference", "Saga", "Amount", "Day"], rows)


def _item(sign: str, item: ProofItemEvidence) -> list[Cell]:
    return [
        sign,
        ("num", str(item.item_id)),
        ("key", item.reference or "-"),
        item.saga_id or "-",
        ("num", item.amount),
        item.day,
    ]


def _how_to_check(report: ReconciliationReport) -> str:
    who_signed = (
        "unsigned" if report.signature is None else f"signed by key {report.signature.key_id}"
    )
    return (
        f"<p>This page embeds its report as JSON ({esc(who_signed)}). Its signature, each audit "
        "record it carries and every count, age and proof can be checked with the public keys "
        "alone: <code>fundsaga audit verify-report FILE --kind reconciliation --public-key "
        "KEY.pub</code>.</p>"
    )
