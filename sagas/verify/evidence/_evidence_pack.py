"""The evidence pack built from a compensation audit: its scope, the chains' status as the
verifications found them, each saga's proof, and the totals."""

from __future__ import annotations

import getpass
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.metadata import version
from types import MappingProxyType

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from sagas.audit import GENESIS_HASH, AnchoredAuditStore, AuditRecord
from sagas.foundations import Settings
from sagas.ledger import JOURNAL_CHAIN, Ledger
from sagas.verify.evidence._compensation_audit import CompensationAudit
from sagas.verify.evidence._evidence_figures import totals_of
from sagas.verify.evidence._evidence_model import EvidencePack, PackVerdict, RailMovementEvidence
from sagas.verify.evidence._evidence_saga import saga_evidence, signed_record, timestamp
from sagas.verify.evidence._evidence_scope import (
    Anchor,
    AuditChain,
    Chains,
    Journal,
    MadeBy,
    Scope,
    Sources,
)
from sagas.verify.evidence._temporal_runs import TemporalRun, task_queues
from sagas.verify.witness import LedgerVerdict, TrailVerdict

NO_RAIL_STATUS: Mapping[int, str] = MappingProxyType({})


@dataclass(frozen=True, kw_only=True)
class PackRequest:
    """What the pack covers and who asks for it."""

    since: datetime | None = None
    until: datetime | None = None
    statuses: Sequence[str]
    task_queue: str
    sources: Sources
    operator: str | None = None
    """The name given with `--by`."""


def build_evidence_pack(
    audit: CompensationAudit,
    ledger: Ledger,
    store: AnchoredAuditStore,
    request: PackRequest,
    *,
    trail: TrailVerdict,
    journal: LedgerVerdict,
    runs: Mapping[str, Sequence[TemporalRun]],
    rail_status: Mapping[int, str] = NO_RAIL_STATUS,
    rail_movements: Sequence[RailMovementEvidence] = (),
) -> EvidencePack:
    """The pack of `audit`, whose findings it starts with. `rail_status` is each rail movement's
    reconciliation status by journal entry id; a rail movement it does not name is shown
    NOT_RECONCILED."""
    sagas = [
        saga_evidence(
            line,
            ledger,
            store,
            runs=runs.get(line.saga_id, ()),
            findings=audit.findings,
            rail_status=rail_status,
        )
        for line in audit.sagas
    ]
    return EvidencePack(
        findings=list(audit.findings),
        verdict=_verdict(audit, sum(len(s.entries) for s in sagas)),
        scope=_scope(store, request, runs),
        chains=Chains(
            audit=audit_chain_of(store, trail), journal=journal_of(ledger, store, journal)
        ),
        totals=totals_of(sagas),
        sagas=sagas,
        rail_movements=list(rail_movements),
    )


def sources_of(settings: Settings) -> Sources:
    return Sources(
        database=without_password(settings.database_url),
        audit_store=_store_location(settings.audit_store),
        anchor_store=_store_location(settings.audit_anchor_store),
        temporal_address=settings.temporal_address,
        temporal_namespace=settings.temporal_namespace,
    )


def without_password(url: str) -> str:
    try:
        parsed = make_url(url)
    except ArgumentError:
        return url.split("@", 1)[-1] if "@" in url else url
    kept = URL.create(
        parsed.drivername,
        username=parsed.username,
        host=parsed.host,
        port=parsed.port,
        database=parsed.database,
        query=parsed.query,
    )
    return kept.render_as_string(hide_password=False)


def _store_location(spec: str) -> str:
    kind, _, where = spec.partition(":")
    return f"{kind}:{without_password(where)}" if kind == "db" else spec


def _verdict(audit: CompensationAudit, entries: int) -> PackVerdict:
    counted = f"{len(audit.sagas)} sagas, {entries} journal entries"
    if audit.ok:
        return PackVerdict(ok=True, summary=f"no findings: {counted}")
    return PackVerdict(ok=False, summary=f"{len(audit.findings)} finding(s): {counted}")


def _scope(
    store: AnchoredAuditStore, request: PackRequest, runs: Mapping[str, Sequence[TemporalRun]]
) -> Scope:
    return Scope(
        since=None if request.since is None else timestamp(request.since),
        until=None if request.until is None else timestamp(request.until),
        statuses=list(request.statuses),
        task_queue=request.task_queue,
        task_queues_seen=task_queues(runs),
        sources=request.sources,
        made_at=timestamp(store.now()),
        made_by=MadeBy(os_user=os_user(), host=socket.gethostname(), operator=request.operator),
        fundsaga_version=version("fundsaga"),
    )


def os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def audit_chain_of(store: AnchoredAuditStore, trail: TrailVerdict) -> AuditChain:
    head = store.head()
    return AuditChain(
        ok=trail.ok,
        records=trail.records,
        head_sequence=0 if head is None else head.sequence,
        head_hash=GENESIS_HASH if head is None else head.hash,
        first_bad_sequence=trail.first_bad_sequence,
        latest_anchor=_anchor(store.anchors.latest_record()),
        findings=list(trail.findings),
    )


def journal_of(ledger: Ledger, store: AnchoredAuditStore, verdict: LedgerVerdict) -> Journal:
    return Journal(
        ok=verdict.ok,
        sealed_head_sequence=verdict.head.sequence,
        sealed_head_hash=verdict.head.entry_hash,
        unsealed=verdict.unsealed,
        latest_anchor=_anchor(store.anchors.latest_record(JOURNAL_CHAIN)),
        key_ids=ledger.entry_key_ids(),
        temporal_compared=verdict.temporal_compared,
        findings=list(verdict.findings),
    )


def _anchor(record: AuditRecord | None) -> Anchor | None:
    if record is None:
        return None
    sequence, hashed = record.payload.get("sequence"), record.payload.get("hash")
    if not isinstance(sequence, int) or not isinstance(hashed, str):
        return None
    return Anchor(sequence=sequence, hash=hashed, record=signed_record(record))
