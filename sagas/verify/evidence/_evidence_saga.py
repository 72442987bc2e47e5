"""One saga of the evidence pack: its line of the compensation audit, with the journal entries,
holds and audit records that prove it, as the ledger and the audit store hold them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from sagas.audit import AuditRecord, AuditStore, hashed_fields
from sagas.engine import Phase
from sagas.foundations import Money
from sagas.ledger import EntryProof, HoldView, Ledger, funding_account_id
from sagas.verify.evidence._evidence_figures import moved_of, net_effect_of, reversals_of
from sagas.verify.evidence._evidence_model import (
    NOT_RECONCILED,
    EntryEvidence,
    HoldEvidence,
    PostingEvidence,
    SagaEvidence,
    SagaRun,
    Seal,
    Verdict,
    WriterLink,
)
from sagas.verify.evidence._evidence_scope import SignedRecord
from sagas.verify.evidence._saga_audit import SagaAudit
from sagas.verify.evidence._temporal_runs import TemporalRun


def saga_evidence(
    line: SagaAudit,
    ledger: Ledger,
    store: AuditStore,
    *,
    runs: Sequence[TemporalRun],
    findings: Iterable[str],
    rail_status: Mapping[int, str],
) -> SagaEvidence:
    """The saga's evidence; its verdict fails on any finding of the report about it."""
    entries = [_entry(p, line.saga_id, rail_status) for p in ledger.entry_proofs(line.saga_id)]
    holds = [_hold(view) for view in ledger.holds(saga_id=line.saga_id)]
    moved = moved_of(holds, entries)
    about = [f for f in findings if f.startswith(f"{line.saga_id}: ")]
    if line.finding is not None and line.finding not in about:
        about.insert(0, line.finding)
    return SagaEvidence(
        saga_id=line.saga_id,
        saga_type=line.saga_type,
        status=line.status,
        recorded_at=timestamp(line.recorded_at),
        requested=line.requested or None,
        moved=None if moved is None else str(moved),
        failed_step=line.failed_step,
        error=line.error,
        compensations=[part for part in line.compensations.split("; ") if part],
        temporal_runs=[_run(run) for run in runs],
        entries=entries,
        reversals=reversals_of(entries),
        holds=holds,
        net_effect=net_effect_of(entries),
        records=[signed_record(r) for r in store.records(saga_id=line.saga_id)],
        verdict=Verdict(ok=not about, reason="; ".join(about) or line.ledger_check),
    )


def signed_record(record: AuditRecord) -> SignedRecord:
    return SignedRecord(
        sequence=record.sequence,
        kind=record.kind,
        key_id=record.key_id,
        hash=record.hash,
        signature=record.signature,
        signed=hashed_fields(record),
    )


def timestamp(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def _entry(proof: EntryProof, saga_id: str, rail_status: Mapping[int, str]) -> EntryEvidence:
    step, phase = _step_of(proof.key, saga_id)
    link, seal = proof.writer_link, proof.seal
    rail = any(account == funding_account_id(code) for account, code, _, _ in proof.postings)
    return EntryEvidence(
        entry_id=proof.entry_id,
        idempotency_key=proof.key,
        step=step,
        phase=phase,
        kind=proof.kind,
        saga_id=proof.saga_id,
        reverses_entry_id=proof.reverses_entry_id,
        created_at=timestamp(proof.created_at),
        postings=[
            PostingEvidence(
                account_id=account, amount=str(Money.of(minor, code)), balance_after=after
            )
            for account, code, minor, after in proof.postings
        ],
        writer_link=None if link is None else WriterLink(sequence=link[0], prev_hash=link[1]),
        seal=None
        if seal is None
        else Seal(sequence=seal.sequence, prev_hash=seal.prev_hash, chain_hash=seal.chain_hash),
        entry_hash=proof.entry_hash,
        key_id=proof.key_id,
        signature=proof.signature,
        rail_status=rail_status.get(proof.entry_id, NOT_RECONCILED if rail else None),
    )


def _step_of(key: str, saga_id: str) -> tuple[str, str]:
    """(step, phase) from the engine's key scheme `<saga id>:<step>:<phase>[:<suffix>]`."""
    parts = key.removeprefix(f"{saga_id}:").split(":") if key.startswith(f"{saga_id}:") else []
    if len(parts) >= 2 and parts[1] in {phase.value for phase in Phase}:
        return parts[0], parts[1]
    return "", ""


def _hold(view: HoldView) -> HoldEvidence:
    return HoldEvidence(
        hold_key=view.hold_key,
        account_id=view.account_id,
        amount=None if view.amount is None else str(view.amount),
        status=view.status.value,
        created_at=timestamp(view.created_at),
        closed_at=None if view.closed_at is None else timestamp(view.closed_at),
    )


def _run(run: TemporalRun) -> SagaRun:
    return SagaRun(
        workflow_id=run.workflow_id,
        run_id=run.run_id,
        task_queue=run.task_queue,
        execution_status=run.execution_status,
        saga_status=run.shown,
    )
