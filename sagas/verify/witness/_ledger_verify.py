"""Verifying the ledger: its journal chain, balances and holds, the journal's anchors, this
verifier's memory of the journal, and every entry against its witness."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sagas.audit import AnchorStore, Keyring
from sagas.ledger import JOURNAL_CHAIN, ChainHead, Ledger
from sagas.verify.witness._account_witness import AccountChanges, account_witness_findings
from sagas.verify.witness._action_histories import ActionHistories
from sagas.verify.witness._entry_witness import awaiting_witness, entry_witness_findings
from sagas.verify.witness._ledger_memory import remember_head, remembered_head, rollback_findings
from sagas.verify.witness._ledger_witness import LedgerWitness
from sagas.verify.witness._statement_witness import statement_witness_findings


@dataclass
class LedgerVerdict:
    head: ChainHead
    anchored_at: int | None = None
    """The highest journal entry an anchor names, when every anchor matched."""
    findings: list[str] = field(default_factory=list)
    temporal_compared: bool = False
    """Whether every entry was checked against Temporal's histories (its witness)."""
    awaiting_witness: int = 0
    """Entries not judged yet: their saga has a step under way that may still report them."""
    unsealed: int = 0
    """Entries written since the sealer last ran: checked, but not in the chain yet."""
    remembered: bool = False
    """Whether this verifier's memory held a head it accepted before this run."""

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def vouched(self) -> bool:
        """Whether something the journal's owner cannot rewrite vouched for its length: Temporal's
        histories, an anchor, or a head this verifier accepted before. Without any, a journal
        cut short looks intact."""
        return self.temporal_compared or self.anchored_at is not None or self.remembered

    @property
    def entries(self) -> int:
        """The sealed chain's length: sequence numbers are gapless from 1."""
        return self.head.sequence


def verify_ledger(
    ledger: Ledger,
    anchors: AnchorStore,
    keyring: Keyring,
    *,
    witness: LedgerWitness | None = None,
    memory: Path | None = None,
    account_changes: AccountChanges | None = None,
    action_histories: ActionHistories | None = None,
) -> LedgerVerdict:
    """Every check, the journal chain's first: the first finding names the first bad entry.

    The chain proves each entry against its predecessor; the signatures that the ledger's own
    writer made each entry and hold as it stands; the anchors, signed and kept in the audit
    trail's anchor store, prove the chain itself, so that a journal rewritten and re-hashed
    from some entry on, or cut short, no longer matches what was anchored. With `memory`, the
    newest head this verifier accepted must still be there (and is remembered once the chain
    verifies and something vouched for its length: `LedgerVerdict.vouched`); with `witness`,
    every entry must have one and every entry a witness saw must be in the journal as it was
    written, and every account status change and overdraft limit (`account_changes`, read
    before Temporal; default: read now) its verified operator action, as far as the histories
    of those actions show it (`action_histories`; not compared when None).
    """
    verdict = LedgerVerdict(ledger.chain_head(), findings=ledger.check_invariants())
    verdict.unsealed = ledger.unsealed_entries()
    verdict.temporal_compared = witness is not None
    verdict.findings += ledger.signature_findings(keyring.problem)
    verdict.findings += _anchor_findings(ledger, anchors, verdict)
    if memory is not None:
        verdict.remembered = remembered_head(memory) is not None
        verdict.findings += rollback_findings(ledger, verdict.head, memory)
        if verdict.ok and verdict.vouched:
            remember_head(memory, verdict.head)
    if witness is not None:
        verdict.findings += entry_witness_findings(
            witness.entries,
            witness.temporal,
            witness.records,
            journal=ledger.entries(),
            reach=witness.reach,
        )
        awaiting = awaiting_witness(
            witness.entries, witness.temporal, witness.records, reach=witness.reach
        )
        verdict.findings += statement_witness_findings(ledger, witness)
        verdict.awaiting_witness = len(awaiting)
        changes = AccountChanges.read(ledger) if account_changes is None else account_changes
        verdict.findings += account_witness_findings(
            changes, witness.records, witness.temporal, action_histories, witness.reach
        )
    return verdict


def _anchor_findings(ledger: Ledger, anchors: AnchorStore, verdict: LedgerVerdict) -> list[str]:
    findings: list[str] = []
    store = anchors.verify()
    if not store.ok:
        findings.append(
            f"anchor store broken at anchor {store.first_bad_sequence}: {store.problem}"
        )
    checkpoints = anchors.checkpoints(JOURNAL_CHAIN)
    mismatched = False
    for checkpoint in checkpoints:
        taken = f"{checkpoint.taken_at:%Y-%m-%d %H:%M:%S}Z"
        if checkpoint.sequence > verdict.head.sequence:
            findings.append(
                f"entry #{checkpoint.sequence} was anchored on {taken}, but the journal ends "
                f"at #{verdict.head.sequence}: entries were deleted"
            )
            mismatched = True
        elif ledger.entry_hash_at(checkpoint.sequence) != checkpoint.hash:
            findings.append(
                f"entry #{checkpoint.sequence}: not the entry anchored on {taken}: the journal "
                "was rewritten up to it"
            )
            mismatched = True
    if checkpoints and not mismatched:
        verdict.anchored_at = max(c.sequence for c in checkpoints)
    return findings
