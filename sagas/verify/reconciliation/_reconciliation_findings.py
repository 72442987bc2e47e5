"""What an auditor must read first in a reconciliation pack: a file no signed import records, or
whose record counts its lines otherwise; a break not closed, or one said explained or resolved
with no operator's record; a proof of cash that does not balance, or statements that do not
chain."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from pydantic import JsonValue

from sagas.engine import AuditKind
from sagas.reconcile import BreakStatus, PeriodBreak
from sagas.verify.reconciliation._reconciliation_model import (
    AccountProof,
    BreakEvidence,
    FileEvidence,
)


def file_findings(files: Sequence[FileEvidence]) -> Iterator[str]:
    for file in files:
        where = f"file {file.file_id} ({file.name})"
        record = file.import_record
        if file.action_id is None:
            yield f"{where}: names no operator action: imported around the worker"
        elif record is None:
            yield f"{where}: no signed {AuditKind.STATEMENT_IMPORTED} record of {file.action_id}"
        elif record.kind != AuditKind.STATEMENT_IMPORTED:
            yield f"{where}: record {record.sequence} of its action imported no file"
        elif _payload(record.signed).get("sha256") not in (None, file.sha256):
            yield f"{where}: record {record.sequence} imported another file (its SHA-256)"
        for statement in file.statements:
            at = f"statement {statement.statement_id}{_place(statement.position)} of {where}"
            counts = statement.counts
            if counts.read != counts.new + counts.known + counts.refused:
                yield (
                    f"{at}: {counts.read} lines read, but {len(statement.lines)} listed: "
                    f"{counts.new} new + {counts.known} known + {counts.refused} refused"
                )
            stated = statement.stated_counts
            if stated is not None and stated != counts:
                yield f"{at}: its import's record counts {stated}, its rows {counts}"


def break_findings(breaks: Sequence[BreakEvidence], period: Sequence[PeriodBreak]) -> Iterator[str]:
    explained_by = {found.view.break_id: found.view.explained_by for found in period}
    adjusted_by = {found.view.break_id: found.view.adjustment_entry_id for found in period}
    for found in breaks:
        where = f"break {found.break_id} {found.kind} ({found.status})"
        acts = [act.act for act in found.acts]
        if found.closed_at is None:
            yield f"{where}, open {found.age_seconds // 3600} h: {found.detail}"
        if explained_by.get(found.break_id) and "explained" not in acts:
            yield f"{where}: explained, but no signed {AuditKind.BREAK_EXPLAINED} record says so"
        if found.status == BreakStatus.RESOLVED and "approved" not in acts:
            yield f"{where}: resolved, but no signed {AuditKind.BREAK_RESOLVED} record says so"
        adjusted = None if found.adjustment is None else found.adjustment.entry_id
        if adjusted_by.get(found.break_id) != adjusted:
            yield (
                f"{where}: names adjusting entry {adjusted_by.get(found.break_id)}, the ledger "
                f"holds {adjusted} under its key"
            )
        for act in found.acts:
            payload = _payload(act.record.signed)
            posted = payload.get("entry_id", adjusted)
            if act.act == "approved" and posted != adjusted:
                yield (
                    f"{where}: record {act.record.sequence} says entry {posted} adjusted it, "
                    f"the ledger holds {adjusted} under its key"
                )


def _place(position: int) -> str:
    return "" if position == 1 else f" (its statement {position})"


def proof_findings(proofs: Sequence[AccountProof]) -> Iterator[str]:
    for account in proofs:
        where = f"account {account.account} ({account.currency})"
        if not account.chained:
            yield f"{where}: its statements do not chain: one opens otherwise than the last closed"
        for proof in account.statements:
            if not proof.balances:
                yield (
                    f"{where}: the proof of cash of statement {proof.statement_id} "
                    f"({proof.place}) does not balance: opening {proof.opening} + lines "
                    f"{proof.statement_lines}, closing {proof.closing}; difference with the "
                    f"ledger {proof.difference}, its items explain {proof.explained}"
                )


def _payload(signed: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    payload = signed.get("payload")
    return payload if isinstance(payload, dict) else {}
