"""Verifying the ledger from its own rows: what `fundsaga ledger verify` reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from sagas.ledger import Ledger


@dataclass(frozen=True)
class LedgerVerdict:
    entries: int
    findings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings


def verify_ledger(ledger: Ledger) -> LedgerVerdict:
    """Every entry balances per currency; every balance and hold matches its postings."""
    return LedgerVerdict(entries=len(ledger.entries()), findings=ledger.check_invariants())
