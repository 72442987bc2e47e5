"""The reconciliation pack: findings first, what it covers, the chains, the statement inventory
with every line of each statement, the register of the period's breaks with each operator's act,
and the proof of cash per account and currency.

Amounts are written as Money prints them ("-10.00 EUR"); a line's amount is positive, its
direction says which way; a proof's figures and items are signed as the account sees them.
"""

from __future__ import annotations

from pydantic import Field

from sagas.verify.evidence import Chains, Evidence, MadeBy, PackVerdict, SignedRecord, Sources

RECONCILIATION_FORMAT = "fundsaga-reconciliation/1"


class ReconciliationScope(Evidence):
    since: str | None
    """The first booking day (ISO 8601 date); None: from the first statement."""
    until: str | None
    """The last booking day; None: up to the last statement."""
    accounts: list[str]
    """The rail accounts covered; empty: every one."""
    as_of: str
    """The database's time when the period was read: what every age is measured to."""
    sources: Sources
    made_at: str
    """By the audit store's clock."""
    made_by: MadeBy
    fundsaga_version: str


class LineCounts(Evidence):
    """Where a statement's lines went: read = new + known + refused."""

    read: int
    new: int
    known: int
    refused: int


class MatchEvidence(Evidence):
    entry_id: int
    saga_id: str | None
    method: str


class TransactionEvidence(Evidence):
    transaction_id: int
    position: int
    end_to_end_id: str | None
    amount: str | None
    return_reason: str | None
    match: MatchEvidence | None
    breaks: list[int]


class LineEvidence(Evidence):
    """A line at its place in its statement (1 for the first). Only a new line (kept with this
    file) carries its booking: a known one is listed with the file that kept it, a refused one
    with its conflict break."""

    position: int
    status: str
    """new, known or refused."""
    line_id: int | None
    bank_reference: str | None
    end_to_end_id: str | None
    direction: str | None
    kind: str | None
    amount: str | None
    fee: str | None
    booking_date: str | None
    value_date: str | None
    description: str
    zero_amount: bool
    match: MatchEvidence | None
    breaks: list[int]
    transactions: list[TransactionEvidence]
    """As the rail details the entry; a line of one transaction is matched as a line, its
    transaction has no match of its own."""


class StatementEvidence(Evidence):
    position: int = 1
    """Its place in its file (1 for the first): what names it there, its id may repeat. A pack
    written before a file could hold several states none: its file's one statement."""
    statement_id: str
    account: str
    currency: str
    period_start: str | None
    period_end: str | None
    opening: str | None
    opening_date: str | None
    closing: str | None
    closing_date: str | None
    counts: LineCounts
    """As its lines below add up."""
    stated_counts: LineCounts | None
    """As the import's signed record states them; None when it states none or is sealed."""
    lines: list[LineEvidence]
    breaks: list[int]
    """Breaks about its balances (statement_unbalanced, statement_gap)."""


class OperatorIdentity(Evidence):
    """The operator as the worker verified their token: the identity provider's (issuer,
    subject) and the name it shows."""

    operator: str
    issuer: str | None
    subject: str | None


class FileEvidence(Evidence):
    file_id: int
    name: str
    sha256: str
    format: str
    imported_at: str
    imported_by: str
    action_id: str | None
    verified_importer: OperatorIdentity | None
    """Who the import's signed record names; None without a readable record."""
    import_record: SignedRecord | None
    statements: list[StatementEvidence]


class BreakAct(Evidence):
    """One operator's act on a break, from its signed audit record."""

    act: str
    """explained, proposed, excess_approved, approved or expired."""
    at: str
    operator: OperatorIdentity | None
    """None for an expiry: nobody acted."""
    note: str | None
    """The operator's own note; None when the record keeps none of theirs (written before it
    did) or is sealed."""
    evidence: str | None
    record: SignedRecord


class PostingLeg(Evidence):
    account_id: str
    amount: str


class AdjustingEntry(Evidence):
    entry_id: int
    idempotency_key: str
    entry_hash: str
    created_at: str
    postings: list[PostingLeg]


class BreakEvidence(Evidence):
    break_id: int
    kind: str
    status: str
    reference: str | None
    line_id: int | None
    entry_id: int | None
    saga_id: str | None
    """The saga of the break's ledger movement, when it has one."""
    transaction_id: int | None
    files: list[int]
    currency: str
    ledger_amount: str | None
    statement_amount: str | None
    difference: str | None
    detail: str
    opened_at: str
    closed_at: str | None
    age_seconds: int
    """From its opening to its closing, or to the scope's `as_of` while it is not closed."""
    opened_by_action: str | None
    closed_by_action: str | None
    acts: list[BreakAct]
    adjustment: AdjustingEntry | None


class ProofItemEvidence(Evidence):
    side: str
    """statement (a line, by its line id) or ledger (a movement, by its entry id)."""
    item_id: int
    reference: str
    amount: str
    day: str
    saga_id: str | None


class StatementProof(Evidence):
    file_id: int
    position: int = 1
    """The statement's place in its file, as the inventory lists it."""
    statement_id: str
    opening_date: str | None = None
    closing_date: str | None = None
    """Its balances' days: with its id, what tells a statement delivered again from the next
    one of the same id (None in a pack written before they were stated)."""
    period_end: str | None
    opening: str
    statement_lines: str
    closing: str
    adds_up: bool
    ledger_movements: str
    ledger_balance: str
    difference: str
    explained: str
    balances: bool
    reconciled: bool
    unmatched_lines: list[ProofItemEvidence]
    unmatched_movements: list[ProofItemEvidence]
    amount_differences: list[ProofItemEvidence]
    charges: list[ProofItemEvidence]

    @property
    def place(self) -> str:
        """Its file, and its place there when it is not the file's first."""
        file = f"file {self.file_id}"
        return file if self.position == 1 else f"{file}, its statement {self.position}"


class AccountProof(Evidence):
    """An account's statements of the period in one currency, in the order they chain."""

    account: str
    currency: str
    opening: str
    movements: str
    closing: str
    chained: bool
    """Each statement opens at the balance the one before closed at."""
    balances: bool
    """Chained, and every statement's proof balances."""
    statements: list[StatementProof]


class ReconciliationPack(Evidence):
    format: str = Field(default=RECONCILIATION_FORMAT, pattern=r"^fundsaga-reconciliation/1$")
    findings: list[str]
    verdict: PackVerdict
    scope: ReconciliationScope
    chains: Chains
    files: list[FileEvidence]
    breaks: list[BreakEvidence]
    proofs: list[AccountProof]
