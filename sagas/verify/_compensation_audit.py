"""The compensation audit: every saga that did not complete, proven against ledger and trail."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sagas.audit import AuditRecord, AuditStore, VerifyResult
from sagas.engine import AuditKind, SagaStatus
from sagas.foundations import InvalidRequestError, Money, parse_money
from sagas.ledger import HoldStatus, Ledger

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


@dataclass(frozen=True)
class SagaAudit:
    """One saga's line in the report."""

    saga_id: str
    status: str
    recorded_at: datetime
    amount: str
    failed_step: str
    error: str
    compensations: str
    ledger_check: str
    finding: str | None


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
    recovery's), else its latest parking or the record that found it killed."""
    latest: dict[str, AuditRecord] = {}
    for record in records:
        if record.kind not in CLOSING_KINDS:
            continue
        current = latest.get(record.saga_id)
        if current is None or current.kind not in FINAL_KINDS:
            latest[record.saga_id] = record
    return latest


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _recorded_amount(payload: dict[str, Any]) -> tuple[str, Money | None]:
    """The amount the record's input names, as written and, when it parses, as Money."""
    request = payload.get("input") or {}
    if not isinstance(request, dict) or "amount" not in request:
        return "", None
    amount, code = request.get("amount"), request.get("currency", "")
    text = f"{amount} {code}".strip()
    try:
        return text, parse_money(str(amount), str(code))
    except InvalidRequestError:
        return text, None


def ledger_amount(ledger: Ledger, saga_id: str) -> Money | None:
    """What the saga moved, from the ledger only: its holds, else its largest posting."""
    held = [h.amount for h in ledger.holds(saga_id=saga_id) if h.amount is not None]
    if held:
        return held[0]
    legs = [
        posting.amount
        for entry in ledger.entries(saga_id=saga_id)
        if entry.reverses_entry_id is None
        for posting in entry.postings
        if posting.amount.minor > 0
    ]
    return max(legs, key=lambda money: money.minor) if legs else None


def _compensations(payload: dict[str, Any]) -> str:
    parts = []
    for comp in payload.get("compensations") or []:
        parts.append(f"{comp.get('step_name')}: {comp.get('result')} at {comp.get('at')}")
    return "; ".join(parts)


def _ledger_check(ledger: Ledger, saga_id: str, status: str) -> tuple[str, str | None]:
    net = ledger.net_effect(saga_id)
    held = [h for h in ledger.holds(saga_id=saga_id) if h.status is HoldStatus.ACTIVE]
    effect = ", ".join(f"{account} {money}" for account, money in net.items())
    holds = ", ".join(f"hold {h.amount} on {h.account_id}" for h in held)
    outstanding = "; ".join(part for part in (effect, holds) if part)
    if not outstanding:
        return "net effect zero on every account", None
    if status == SagaStatus.COMPENSATED.value:
        return f"NOT undone: {outstanding}", f"{saga_id}: compensated but {outstanding} remains"
    return f"outstanding: {outstanding}", None


def _recovery_check(record: AuditRecord, status: str, check: str) -> tuple[str, str | None]:
    """A killed saga not recovered is a finding; a recovered one names its record and operators."""
    payload: dict[str, Any] = dict(record.payload)
    if record.kind == AuditKind.SAGA_KILLED:
        finding = (
            f"{record.saga_id}: killed ({_text(payload.get('closed_as'))}) and not recovered"
            f" (record {record.sequence}): {check}"
        )
        return f"KILLED, not recovered: {check}", finding
    if record.kind == AuditKind.SAGA_RECOVERED:
        recovery = payload.get("recovery") or {}
        who = [
            _text((recovery.get(role) or {}).get("operator"))
            for role in ("proposed_by", "approved_by")
        ]
        note = f"recovered {status} by record {record.sequence} (proposed by {who[0]}, "
        return f"{check}; {note}approved by {who[1]})", None
    return check, None


def audit_saga(ledger: Ledger, record: AuditRecord) -> SagaAudit:
    payload: dict[str, Any] = dict(record.payload)
    status = _text(payload.get("status"))
    check, finding = _ledger_check(ledger, record.saga_id, status)
    check, killed = _recovery_check(record, status, check)
    finding = finding or killed
    moved = ledger_amount(ledger, record.saga_id)
    recorded, recorded_money = _recorded_amount(payload)
    # Compared as money, not text: "2 EUR" in a request is the 2.00 EUR the ledger moved.
    if finding is None and moved is not None and recorded and recorded_money != moved:
        finding = (
            f"{record.saga_id}: record {record.sequence} says {recorded}, the ledger moved {moved}"
        )
    return SagaAudit(
        saga_id=record.saga_id,
        status=status,
        recorded_at=record.recorded_at,
        amount="nothing" if moved is None else str(moved),
        failed_step=_text(payload.get("failed_step")),
        error=f"{_text(payload.get('error_class'))}: {_text(payload.get('error_message'))}",
        compensations=_compensations(payload),
        ledger_check=check,
        finding=finding,
    )


def run_compensation_audit(
    ledger: Ledger,
    store: AuditStore,
    temporal_statuses: dict[str, str] | None,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    status: SagaStatus | None = None,
) -> CompensationAudit:
    """Build the report; `temporal_statuses` is SagaStatus per saga id as Temporal lists it
    (None when Temporal could not be asked, itself a finding)."""
    chain = store.verify()
    report = CompensationAudit(chain=chain)
    if not chain.ok:
        report.findings.append(
            f"audit chain broken at sequence {chain.first_bad_sequence}: {chain.problem}"
        )
    report.findings.extend(f"ledger: {problem}" for problem in ledger.check_invariants())
    closing = closing_records(store.records())
    reachable = temporal_statuses is not None
    if temporal_statuses is None:
        report.findings.append("Temporal not reachable: visibility was not cross-checked")
        temporal_statuses = {}
    for saga_id, shown in sorted(temporal_statuses.items()):
        if shown in {s.value for s in AUDITED} and saga_id not in closing:
            report.findings.append(f"{saga_id}: Temporal shows {shown} but no audit record exists")
    for record in sorted(closing.values(), key=lambda r: r.sequence):
        line = audit_saga(ledger, record)
        recovered = record.kind == AuditKind.SAGA_RECOVERED
        if line.status not in {s.value for s in AUDITED} and not recovered:
            continue
        if status is not None and line.status != status.value:
            continue
        if (since and record.recorded_at < since) or (until and record.recorded_at > until):
            continue
        if reachable:
            findings, note = _against_temporal(ledger, record, line, temporal_statuses)
            report.findings.extend(findings)
            if note:
                line = replace(line, ledger_check=f"{line.ledger_check}; {note}")
        report.sagas.append(line)
        if line.finding:
            report.findings.append(line.finding)
    return report


def _against_temporal(
    ledger: Ledger, record: AuditRecord, line: SagaAudit, temporal: dict[str, str]
) -> tuple[list[str], str | None]:
    """Findings from the saga Temporal knows, or a note when only the ledger remembers it."""
    shown = temporal.get(record.saga_id)
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
