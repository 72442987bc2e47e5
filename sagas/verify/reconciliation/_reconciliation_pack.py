"""The reconciliation pack of a period, from the reconciliation's tables, the ledger and the
signed audit trail: the statement inventory, every line with its match or its breaks, the break
register with each operator's act, the proofs of cash, and the findings first."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version

from sagas.audit import AnchoredAuditStore
from sagas.codec import PayloadKeys
from sagas.engine import AuditKind
from sagas.reconcile import PeriodScope, Reconciliation, reconciliation_period
from sagas.verify.evidence import (
    Chains,
    MadeBy,
    PackVerdict,
    Sources,
    audit_chain_of,
    journal_of,
    os_user,
    timestamp,
)
from sagas.verify.reconciliation._reconciliation_findings import (
    break_findings,
    file_findings,
    proof_findings,
)
from sagas.verify.reconciliation._reconciliation_inventory import file_evidence
from sagas.verify.reconciliation._reconciliation_model import (
    ReconciliationPack,
    ReconciliationScope,
)
from sagas.verify.reconciliation._reconciliation_proofs import account_proofs
from sagas.verify.reconciliation._reconciliation_records import ACTS, ReadRecord
from sagas.verify.reconciliation._reconciliation_register import break_evidence
from sagas.verify.witness import LedgerVerdict, TrailVerdict, opened_records


@dataclass(frozen=True, kw_only=True)
class ReconciliationRequest:
    """What the pack covers and who asks for it."""

    scope: PeriodScope
    sources: Sources
    operator: str | None = None
    """The name given with `--by`."""


def build_reconciliation_pack(
    books: Reconciliation,
    store: AnchoredAuditStore,
    request: ReconciliationRequest,
    *,
    trail: TrailVerdict,
    journal: LedgerVerdict,
    payload_keys: PayloadKeys | None = None,
) -> ReconciliationPack:
    """The pack of `request.scope`; with `payload_keys`, records the deployment sealed are read
    opened (their signed form is what the pack carries)."""
    period = reconciliation_period(books, request.scope)
    records = _read(store, payload_keys)
    imports = {
        r.record.saga_id: r for r in records if r.record.kind == AuditKind.STATEMENT_IMPORTED
    }
    files = [file_evidence(file, imports) for file in period.files]
    by_break: dict[int, list[ReadRecord]] = {}
    for read in records:
        about = read.payload.get("break_id")
        if read.record.kind in ACTS and isinstance(about, int):
            by_break.setdefault(about, []).append(read)
    movements = period.movements
    breaks = [
        break_evidence(
            found, period.as_of, by_break.get(found.view.break_id, []), books.ledger, movements
        )
        for found in period.breaks
    ]
    proofs = account_proofs(period)
    findings = [f"audit trail: {finding}" for finding in trail.findings]
    findings += [f"ledger: {finding}" for finding in journal.findings]
    findings += _sealed(records)
    findings += file_findings(files)
    findings += break_findings(breaks, period.breaks)
    findings += proof_findings(proofs)
    lines = sum(len(s.lines) for f in files for s in f.statements)
    counted = (
        f"{len(files)} files, {sum(len(f.statements) for f in files)} statements, {lines} lines, "
        f"{len(breaks)} breaks ({sum(b.closed_at is None for b in breaks)} not closed)"
    )
    verdict = (
        PackVerdict(ok=True, summary=f"no findings: {counted}")
        if not findings
        else PackVerdict(ok=False, summary=f"{len(findings)} finding(s): {counted}")
    )
    return ReconciliationPack(
        findings=findings,
        verdict=verdict,
        scope=_scope(store, request, timestamp(period.as_of)),
        chains=Chains(
            audit=audit_chain_of(store, trail), journal=journal_of(books.ledger, store, journal)
        ),
        files=files,
        breaks=breaks,
        proofs=proofs,
    )


def _read(store: AnchoredAuditStore, keys: PayloadKeys | None) -> list[ReadRecord]:
    stored = store.records()
    return [
        ReadRecord(record, opened.payload)
        for record, opened in zip(stored, opened_records(stored, keys), strict=True)
    ]


def _sealed(records: Sequence[ReadRecord]) -> list[str]:
    kinds = {*ACTS, AuditKind.STATEMENT_IMPORTED.value}
    sealed = [r.record.sequence for r in records if r.record.kind in kinds and r.sealed]
    if not sealed:
        return []
    return [
        f"audit records {', '.join(map(str, sealed[:5]))}{' ...' if len(sealed) > 5 else ''} "
        "are sealed: set FUNDSAGA_PAYLOAD_KEYS to read the imports and the operators' acts"
    ]


def _scope(
    store: AnchoredAuditStore, request: ReconciliationRequest, as_of: str
) -> ReconciliationScope:
    scope = request.scope
    return ReconciliationScope(
        since=None if scope.since is None else scope.since.isoformat(),
        until=None if scope.until is None else scope.until.isoformat(),
        accounts=sorted(scope.accounts),
        as_of=as_of,
        sources=request.sources,
        made_at=timestamp(store.now()),
        made_by=MadeBy(os_user=os_user(), host=socket.gethostname(), operator=request.operator),
        fundsaga_version=version("fundsaga"),
    )
