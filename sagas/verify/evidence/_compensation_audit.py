"""The compensation audit: every saga that did not complete, proven against ledger and trail."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from sagas.audit import AuditRecord, AuditStore, VerifyResult
from sagas.codec import PayloadKeys
from sagas.engine import AuditKind, SagaStatus
from sagas.ledger import Ledger
from sagas.verify.evidence._saga_audit import SagaAudit, audit_saga
from sagas.verify.witness import opened_records

AUDITED = (
    SagaStatus.COMPENSATED,
    SagaStatus.NEEDS_ATTENTION,
    SagaStatus.RESOLVED,
    SagaStatus.REJECTED,
    SagaStatus.KILLED,
)
FINAL_KINDS = (AuditKind.TERMINAL, AuditKind.SAGA_RECOVERED)
"""The one record a saga closes with: by its own run, or by its recovery once killed."""
CLOSING_KINDS = (*FINAL_KINDS, AuditKind.NEEDS_ATTENTION, AuditKind.SAGA_KILLED)


@dataclass
class CompensationAudit:
    sagas: list[SagaAudit] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    chain: VerifyResult | None = None

    @property
    def ok(self) -> bool:
        return not self.findings


def closing_records(records: Iterable[AuditRecord]) -> dict[str, AuditRecord]:
    """Per saga, the record that says how it stands: its closing one (terminal, or its
    recovery's), else its latest parking or the record that found it killed. A key reused after
    a REJECTED run stands as its later run does."""
    return _closing(records)[0]


def _closing(records: Iterable[AuditRecord]) -> tuple[dict[str, AuditRecord], list[AuditRecord]]:
    """The closing record of each saga, and those of REJECTED runs whose key a later run reused
    (each its own line: that run took no effect, whatever the later one did)."""
    latest: dict[str, AuditRecord] = {}
    reused: list[AuditRecord] = []
    for record in records:
        if record.kind not in CLOSING_KINDS:
            continue
        current = latest.get(record.saga_id)
        if current is not None and _rejected(current):
            reused.append(current)
            latest[record.saga_id] = record
        elif current is None or current.kind not in FINAL_KINDS:
            latest[record.saga_id] = record
    return latest, reused


def _rejected(record: AuditRecord) -> bool:
    """A REJECTED run's terminal record: that run closed, so any later record is another run's."""
    status = dict(record.payload).get("status")
    return record.kind == AuditKind.TERMINAL and status == SagaStatus.REJECTED.value


def run_compensation_audit(
    ledger: Ledger,
    store: AuditStore,
    temporal_statuses: dict[str, str] | None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    status: SagaStatus | None = None,
    payload_keys: PayloadKeys | None = None,
    run_statuses: Mapping[str, str] | None = None,
) -> CompensationAudit:
    """Build the report; `temporal_statuses` is SagaStatus per saga id as Temporal lists it
    (None when Temporal could not be asked, itself a finding), `run_statuses` the status per run
    id, against which a record naming its run is checked (a reused key has several runs). With
    `payload_keys`, records the deployment sealed are read opened."""
    chain = store.verify()
    report = CompensationAudit(chain=chain)
    if not chain.ok:
        report.findings.append(
            f"audit chain broken at sequence {chain.first_bad_sequence}: {chain.problem}"
        )
    report.findings.extend(f"ledger: {problem}" for problem in ledger.check_invariants())
    closing, reused = _closing(opened_records(store.records(), payload_keys))
    reachable = temporal_statuses is not None
    if temporal_statuses is None:
        report.findings.append("Temporal not reachable: visibility was not cross-checked")
        temporal_statuses = {}
    for saga_id, shown in sorted(temporal_statuses.items()):
        if shown in {s.value for s in AUDITED} and saga_id not in closing:
            report.findings.append(f"{saga_id}: Temporal shows {shown} but no audit record exists")
    for record in sorted([*closing.values(), *reused], key=lambda r: r.sequence):
        line = audit_saga(ledger, record)
        recovered = record.kind == AuditKind.SAGA_RECOVERED
        if line.status not in {s.value for s in AUDITED} and not recovered:
            continue
        if status is not None and line.status != status.value:
            continue
        if (since and record.recorded_at < since) or (until and record.recorded_at > until):
            continue
        if reachable:
            runs = run_statuses or {}
            findings, note = _against_temporal(ledger, record, line, temporal_statuses, runs)
            report.findings.extend(findings)
            if note:
                line = replace(line, ledger_check=f"{line.ledger_check}; {note}")
        report.sagas.append(line)
        if line.finding:
            report.findings.append(line.finding)
    return report


def _against_temporal(
    ledger: Ledger,
    record: AuditRecord,
    line: SagaAudit,
    temporal: dict[str, str],
    runs: Mapping[str, str],
) -> tuple[list[str], str | None]:
    """Findings from the saga Temporal knows, or a note when only the ledger remembers it."""
    run = dict(record.payload).get("run_id")
    shown = runs.get(run) if isinstance(run, str) and run in runs else temporal.get(record.saga_id)
    if shown is None:
        if ledger.claim_of(record.saga_id) is None and not ledger.snapshots(record.saga_id):
            finding = (
                f"{record.saga_id}: record {record.sequence} names a saga that Temporal does "
                "not know and that left no trace in the ledger"
            )
            return [finding], None
        return [], "history no longer in Temporal: proven from the signed record and the ledger"
    if record.kind == AuditKind.TERMINAL and shown != line.status:
        finding = f"{record.saga_id}: record {record.sequence} says {line.status}, Temporal {shown}"
        return [finding], None
    return [], None
