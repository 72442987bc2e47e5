"""The evidence pack: findings first, the scope and the chains, totals, then each saga with the
journal entries, holds and audit records that prove its verdict.

Amounts are written as Money prints them ("-10.00 EUR"); a posting's amount is what its entry's
hash covers, in the currency's minor units, so a changed amount no longer hashes.
"""

from __future__ import annotations

from pydantic import Field

from sagas.verify.evidence._evidence_scope import Chains, Evidence, Scope, SignedRecord

EVIDENCE_FORMAT = "fundsaga-evidence/1"
NOT_RECONCILED = "not reconciled"
"""A rail movement's status when reconciliation has not matched it."""


class PostingEvidence(Evidence):
    account_id: str
    amount: str
    """Signed: negative takes money out of the account."""
    balance_after: int | None
    """A customer account's balance after it, in minor units; None on a system account."""


class WriterLink(Evidence):
    """The place an entry's writer chained it at (entries before revision 0011 only)."""

    sequence: int
    prev_hash: str


class Seal(Evidence):
    """The entry's link in the sealed journal chain."""

    sequence: int
    prev_hash: str
    chain_hash: str


class EntryEvidence(Evidence):
    entry_id: int
    idempotency_key: str
    step: str
    """The saga step whose effect it is ("" when its key names none)."""
    phase: str
    """action or compensation."""
    kind: str
    saga_id: str | None
    reverses_entry_id: int | None
    created_at: str
    postings: list[PostingEvidence]
    writer_link: WriterLink | None
    seal: Seal | None
    entry_hash: str
    key_id: str | None
    signature: str | None
    """The writer's Ed25519 signature (base64) over "fundsaga journal entry <entry_hash>"."""
    rail_status: str | None
    """For a movement through a rail (a posting on @funding), how reconciliation matched it;
    None for every other entry."""


class Reversal(Evidence):
    original_entry_id: int
    reversal_entry_id: int


class HoldEvidence(Evidence):
    hold_key: str
    account_id: str | None
    amount: str | None
    status: str
    """active, posted (captured) or voided (released)."""
    created_at: str
    closed_at: str | None


class NetEffect(Evidence):
    account_id: str
    amount: str


class SagaRun(Evidence):
    workflow_id: str
    run_id: str
    task_queue: str
    execution_status: str
    saga_status: str


class Verdict(Evidence):
    ok: bool
    reason: str


class SagaEvidence(Evidence):
    saga_id: str
    saga_type: str
    status: str
    recorded_at: str
    requested: str | None
    """The amount its request names, as written; None when the record names none or is sealed."""
    moved: str | None
    """What the ledger moved: its first hold, else its largest posting; None when nothing."""
    failed_step: str
    error: str
    compensations: list[str]
    temporal_runs: list[SagaRun]
    entries: list[EntryEvidence]
    reversals: list[Reversal]
    holds: list[HoldEvidence]
    net_effect: list[NetEffect]
    """Per account, the non-zero sum of the entries' postings."""
    records: list[SignedRecord]
    verdict: Verdict


class Total(Evidence):
    currency: str
    """"" for sagas that moved nothing and name no amount."""
    status: str
    sagas: int
    moved: str
    """The sum of what the sagas moved, in the currency."""


class RailMovementEvidence(Evidence):
    """A journal entry a rail moves (of any saga, completed ones too) and where it stands in
    reconciliation with the rail's statements."""

    entry_id: int
    entry_hash: str
    saga_id: str
    step: str
    end_to_end_id: str
    amount: str
    booked_at: str
    reconciliation: str


class PackVerdict(Evidence):
    ok: bool
    summary: str


class EvidencePack(Evidence):
    findings: list[str]
    verdict: PackVerdict
    scope: Scope
    chains: Chains
    totals: list[Total]
    sagas: list[SagaEvidence]
    rail_movements: list[RailMovementEvidence] = Field(default_factory=list)
    format: str = Field(default=EVIDENCE_FORMAT, pattern=r"^fundsaga-evidence/1$")


class Signature(Evidence):
    """Detached: Ed25519 over the canonical JSON (sorted keys, no whitespace, UTF-8) of the
    report without its `signature` member."""

    algorithm: str = Field(default="Ed25519", pattern=r"^Ed25519$")
    key_id: str
    value: str
