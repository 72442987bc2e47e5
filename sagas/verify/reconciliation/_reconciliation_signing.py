"""The reconciliation pack as one JSON document with its detached signature, signed as the
compensation audit's report is (`_evidence_signing`): Ed25519 over the canonical JSON of the
document but its `signature` member, which holds the pack's `format`."""

from __future__ import annotations

from dataclasses import dataclass

from sagas.audit import SigningKey
from sagas.verify.evidence import SignedPack, pack_signature
from sagas.verify.reconciliation._reconciliation_model import ReconciliationPack


@dataclass(frozen=True)
class ReconciliationReport(SignedPack[ReconciliationPack]):
    """The reconciliation pack and its signature."""


def sign_reconciliation(pack: ReconciliationPack, key: SigningKey | None) -> ReconciliationReport:
    return ReconciliationReport(pack, pack_signature(pack, key))
