"""The pieces of the evidence page: escaped tables and lists, and one saga's section with its
journal entries, reversal pairs, holds, net effect and audit records."""

from __future__ import annotations

import html
from collections.abc import Sequence

from sagas.verify import EntryEvidence, SagaEvidence

Cell = str | tuple[str, str]
"""A cell's text, or (css class, text)."""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, css: str = "") -> str:
    if not rows:
        return '<p class="none">None.</p>'
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    klass = f' class="{esc(css)}"' if css else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def definitions(pairs: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{esc(term)}</dt><dd>{esc(text)}</dd>" for term, text in pairs)
    return f"<dl>{items}</dl>"


def _cell(cell: Cell) -> str:
    if isinstance(cell, tuple):
        return f'<td class="{esc(cell[0])}">{esc(cell[1])}</td>'
    return f"<td>{esc(cell)}</td>"


def saga_section(saga: SagaEvidence) -> str:
    verdict = "proven" if saga.verdict.ok else "NOT PROVEN"
    css = "ok" if saga.verdict.ok else "fail"
    runs = "; ".join(
        f"{r.workflow_id} run {r.run_id} on task queue {r.task_queue} ({r.execution_status}, "
        f"shows {r.saga_status or '-'})"
        for r in saga.temporal_runs
    )
    facts = definitions(
        [
            ("Saga type", saga.saga_type or "-"),
            ("Requested", saga.requested or "not readable in the record"),
            ("Moved", saga.moved or "no money moved"),
            ("Failed step", saga.failed_step or "-"),
            ("Error", saga.error or "-"),
            ("Compensations", "; ".join(saga.compensations) or "-"),
            ("Closing record at", saga.recorded_at),
            ("Temporal", runs or "no run listed"),
        ]
    )
    return (
        f'<section class="saga" id="{esc(saga.saga_id)}">'
        f"<h2>{esc(saga.saga_id)} <small>{esc(saga.status)}</small></h2>"
        f'<p class="verdict {css}">{esc(verdict)}: {esc(saga.verdict.reason)}</p>{facts}'
        f"<h3>Journal entries</h3>{_entries(saga.entries)}"
        f"<h3>Reversal pairs</h3>{_reversals(saga)}"
        f"<h3>Holds</h3>{_holds(saga)}"
        f"<h3>Net effect</h3>{_net_effect(saga)}"
        f"<h3>Audit records</h3>{_records(saga)}"
        "</section>"
    )


def _entries(entries: Sequence[EntryEvidence]) -> str:
    rows: list[list[Cell]] = []
    for entry in entries:
        postings = "\n".join(f"{p.account_id} {p.amount}" for p in entry.postings)
        rows.append(
            [
                ("num", str(entry.entry_id)),
                ("key", entry.idempotency_key),
                f"{entry.step} {entry.phase}".strip() or "-",
                entry.kind,
                ("num", "-" if entry.seal is None else f"#{entry.seal.sequence}"),
                ("lines", postings or "no postings"),
                ("num", "-" if entry.reverses_entry_id is None else str(entry.reverses_entry_id)),
                ("hash", entry.entry_hash),
                ("hash", entry.key_id or "NOT SIGNED"),
                entry.rail_status or "-",
            ]
        )
    headers = ["Entry", "Key", "Step", "Kind", "Seq", "Postings", "Reverses", "Entry hash"]
    return table([*headers, "Key id", "Rail"], rows, css="entries")


def _reversals(saga: SagaEvidence) -> str:
    keys = {entry.entry_id: entry.idempotency_key for entry in saga.entries}
    rows: list[list[Cell]] = [
        [
            ("num", str(pair.original_entry_id)),
            ("key", keys.get(pair.original_entry_id, "not in this saga")),
            ("num", str(pair.reversal_entry_id)),
            ("key", keys.get(pair.reversal_entry_id, "")),
        ]
        for pair in saga.reversals
    ]
    return table(["Original", "Original key", "Reversed by", "Reversal key"], rows)


def _holds(saga: SagaEvidence) -> str:
    ended = {"posted": "posted (captured)", "voided": "voided (released)", "active": "STILL HELD"}
    rows: list[list[Cell]] = [
        [
            ("key", hold.hold_key),
            hold.account_id or "-",
            ("num", hold.amount or "-"),
            ended.get(hold.status, hold.status),
            hold.created_at,
            hold.closed_at or "-",
        ]
        for hold in saga.holds
    ]
    return table(["Hold", "Account", "Amount", "Ended", "Placed", "Closed"], rows)


def _net_effect(saga: SagaEvidence) -> str:
    if not saga.net_effect:
        return '<p class="ok">Zero on every account.</p>'
    rows: list[list[Cell]] = [[n.account_id, ("num", n.amount)] for n in saga.net_effect]
    return table(["Account", "Net effect"], rows)


def _records(saga: SagaEvidence) -> str:
    rows: list[list[Cell]] = [
        [("num", str(r.sequence)), r.kind, ("hash", r.hash), ("hash", r.key_id)]
        for r in saga.records
    ]
    return table(["Sequence", "Kind", "Record hash", "Key id"], rows)
