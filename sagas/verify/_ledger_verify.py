"""Verifying the ledger: its journal chain, balances and holds, and the journal's anchors."""

from __future__ import annotations

from dataclasses import dataclass, field

from sagas.audit import AnchorStore, Keyring
from sagas.ledger import JOURNAL_CHAIN, ChainHead, Ledger


@dataclass
class LedgerVerdict:
    head: ChainHead
    anchored_at: int | None = None
    """The highest journal entry an anchor names, when every anchor matched."""
    findings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def entries(self) -> int:
        """The journal's length: sequence numbers are gapless from 1."""
        return self.head.sequence


def verify_ledger(ledger: Ledger, anchors: AnchorStore, keyring: Keyring) -> LedgerVerdict:
    """Every check, the journal chain's first: the first finding names the first bad entry.

    The chain proves each entry against its predecessor; the signatures that the ledger's own
    writer made each entry and hold as it stands; the anchors, signed and kept in the audit
    trail's anchor store, prove the chain itself, so that a journal rewritten and re-hashed
    from some entry on, or cut short, no longer matches what was anchored.
    """
    verdict = LedgerVerdict(ledger.chain_head(), findings=ledger.check_invariants())
    verdict.findings += ledger.signature_findings(keyring.problem)
    store = anchors.verify()
    if not store.ok:
        verdict.findings.append(
            f"anchor store broken at anchor {store.first_bad_sequence}: {store.problem}"
        )
    checkpoints = anchors.checkpoints(JOURNAL_CHAIN)
    mismatched = False
    for checkpoint in checkpoints:
        taken = f"{checkpoint.taken_at:%Y-%m-%d %H:%M:%S}Z"
        if checkpoint.sequence > verdict.head.sequence:
            verdict.findings.append(
                f"entry #{checkpoint.sequence} was anchored on {taken}, but the journal ends "
                f"at #{verdict.head.sequence}: entries were deleted"
            )
            mismatched = True
        elif ledger.entry_hash_at(checkpoint.sequence) != checkpoint.hash:
            verdict.findings.append(
                f"entry #{checkpoint.sequence}: not the entry anchored on {taken}: the journal "
                "was rewritten up to it"
            )
            mismatched = True
    if checkpoints and not mismatched:
        verdict.anchored_at = max(c.sequence for c in checkpoints)
    return verdict
