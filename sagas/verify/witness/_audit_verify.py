"""Verifying the audit trail: its chain and signatures, the anchor store, and this verifier's
memory of the last anchor it accepted, so that a rolled-back anchor store is a finding too."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sagas.audit import AnchoredAuditStore, Checkpoint
from sagas.foundations import DEFAULT_HOME

VERIFIED_ANCHOR = DEFAULT_HOME / "audit-verified-anchor.json"
"""The newest anchor this verifier accepted: an anchor store behind it was rolled back."""


@dataclass
class TrailVerdict:
    ok: bool = True
    records: int = 0
    first_bad_sequence: int | None = None
    findings: list[str] = field(default_factory=list)
    anchored_at: int | None = None

    def fail(self, finding: str, sequence: int | None = None) -> None:
        self.ok = False
        self.findings.append(finding)
        if self.first_bad_sequence is None:
            self.first_bad_sequence = sequence


def verify_trail(
    store: AnchoredAuditStore, checkpoint: Checkpoint | None, memory: Path = VERIFIED_ANCHOR
) -> TrailVerdict:
    """Every check, findings in the order an auditor reads them; remembers a good anchor."""
    verdict = TrailVerdict()
    anchors = store.anchors.verify()
    if not anchors.ok:
        verdict.fail(
            f"anchor store broken at anchor {anchors.first_bad_sequence}: {anchors.problem}"
        )
    latest = store.anchors.latest()
    remembered = _remembered(memory)
    if remembered is not None and (latest is None or latest.sequence < remembered.sequence):
        ends = f"record {latest.sequence}" if latest else "nothing"
        verdict.fail(
            f"anchor store rolled back: its newest anchor names {ends}, but this verifier "
            f"accepted an anchor of record {remembered.sequence} on "
            f"{remembered.taken_at:%Y-%m-%d %H:%M}Z",
        )
    for against in _distinct(latest, remembered, checkpoint):
        result = store.verify(against)
        verdict.records = result.records
        if not result.ok:
            verdict.fail(f"{result.problem}", result.first_bad_sequence)
            break
    if verdict.ok and latest is not None:
        verdict.anchored_at = latest.sequence
        _remember(memory, latest)
    return verdict


def _distinct(*checkpoints: Checkpoint | None) -> list[Checkpoint | None]:
    chosen: list[Checkpoint | None] = []
    for checkpoint in checkpoints:
        if checkpoint is not None and checkpoint not in chosen:
            chosen.append(checkpoint)
    return chosen or [None]


def _remembered(memory: Path) -> Checkpoint | None:
    try:
        return Checkpoint.from_json(memory.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def _remember(memory: Path, anchor: Checkpoint) -> None:
    remembered = _remembered(memory)
    if remembered is not None and remembered.sequence >= anchor.sequence:
        return
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(anchor.to_json(), encoding="utf-8")
