"""The witness of the reconciliation's rows: each statement file, line, match and break was
written by the worker inside a verified operator's action, whose signed audit record
(`statement_imported`, `reconciliation_run`) names the action and counts what it wrote. A row
of no action, of an action with no record, or beyond the record's counts was written around the
worker; an explained or resolved break needs its operator's record too."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sagas.audit import AuditRecord
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind
from sagas.ledger import Ledger
from sagas.reconcile import RowsOfAction, reconciliation_rows
from sagas.verify.witness._ledger_witness import LedgerWitness

ACTION_KINDS = (AuditKind.STATEMENT_IMPORTED, AuditKind.RECONCILIATION_RUN)


def statement_witness_findings(ledger: Ledger, witness: LedgerWitness) -> list[str]:
    """The rows without their record, against the witness's verified records; an action
    Temporal saw still running may not have written its record yet: it is judged once it
    ends."""
    return row_findings(ledger, witness.records, witness.temporal.in_flight)


def row_findings(
    ledger: Ledger, records: Sequence[AuditRecord], in_flight: Collection[str] = ()
) -> list[str]:
    rows = reconciliation_rows(ledger.engine)
    findings = [
        f"reconciliation: {what} names no operator action: written around the worker, with no "
        "audit record"
        for what in rows.unstamped
    ]
    by_action = {r.saga_id: r for r in records if r.kind in ACTION_KINDS}
    for action in rows.by_action.values():
        if action.action_id in in_flight:
            continue
        problem = _action_problem(action, by_action.get(action.action_id))
        if problem is not None:
            findings.append(f"reconciliation: action {action.action_id}: {problem}")
    findings += _break_findings(rows.explained, records, AuditKind.BREAK_EXPLAINED, "explained")
    findings += _break_findings(rows.resolved, records, AuditKind.BREAK_RESOLVED, "resolved")
    return findings


def _action_problem(action: RowsOfAction, record: AuditRecord | None) -> str | None:
    wrote = ", ".join(f"{count} {what}" for what, count in action.counts().items() if count)
    if action.files:
        wrote = f"file {', '.join(map(str, action.files))}; {wrote}"
    if record is None:
        return f"wrote {wrote or 'rows'} with no signed audit record"
    payload = record.payload
    if SEALED_FIELD in payload:
        return f"record {record.sequence} is sealed: set FUNDSAGA_PAYLOAD_KEYS to check its counts"
    stated = {what: payload.get(what, 0) for what in action.counts()}
    if stated != action.counts():
        return f"record {record.sequence} counts {stated}, the rows {action.counts()}"
    if action.files and (
        record.kind != AuditKind.STATEMENT_IMPORTED
        or list(action.files.values()) != [payload.get("sha256")]
    ):
        return f"record {record.sequence} imported no file {', '.join(action.files.values())}"
    return _statements_problem(action, record)


def _statements_problem(action: RowsOfAction, record: AuditRecord) -> str | None:
    """The statements an import kept are the file's it kept, as many as its record lists
    (records written before imports listed them state none to compare)."""
    listed = record.payload.get("statements")
    if not action.files:
        kept = action.statements
        return f"wrote {kept} statement(s) but no file" if kept else None
    if isinstance(listed, list) and len(listed) != action.statements:
        return (
            f"record {record.sequence} lists {len(listed)} statement(s), "
            f"the rows {action.statements}"
        )
    return None


def _break_findings(
    break_ids: Sequence[int], records: Sequence[AuditRecord], kind: AuditKind, verb: str
) -> list[str]:
    recorded = {r.payload.get("break_id") for r in records if r.kind == kind}
    return [
        f"reconciliation: break {break_id} is {verb}, but no signed {kind} record says so"
        for break_id in break_ids
        if break_id not in recorded
    ]
