"""Invariants a saga must leave in the ledger, as lists of findings (empty when sound)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sagas.ledger import HoldStatus, Ledger
from sagas.testing._scenario import KeyCheck


def customer_money(ledger: Ledger) -> dict[str, int]:
    """Per currency, the minor units on customer accounts (every account but the system's)."""
    totals: Counter[str] = Counter()
    for account in ledger.accounts():
        totals[account.currency] += account.balance.minor
    return dict(totals)


def money_on(ledger: Ledger, account_ids: Iterable[str]) -> dict[str, int]:
    """Per currency, what these accounts hold (a system account never used holds nothing)."""
    totals: Counter[str] = Counter()
    for account_id in set(account_ids):
        account = ledger.find_account(account_id)
        if account is not None:
            totals[account.currency] += account.balance.minor
    return dict(totals)


def conservation_findings(
    customers_before: dict[str, int],
    declared_before: dict[str, int],
    customers_after: dict[str, int],
    declared_after: dict[str, int],
) -> list[str]:
    """What customers lost (or gained) went exactly to (or came from) the declared accounts:
    money never appears, and never leaves them for an account the saga did not declare."""
    findings: list[str] = []
    for code in sorted(customers_before.keys() | customers_after.keys() | declared_after.keys()):
        lost = customers_before.get(code, 0) - customers_after.get(code, 0)
        declared = declared_after.get(code, 0) - declared_before.get(code, 0)
        if lost != declared:
            findings.append(
                f"money: customers' {code} changed by {-lost} minor units, the declared "
                f"accounts' by {declared}"
            )
    return findings


def key_findings(ledger: Ledger, saga_id: str, belongs: KeyCheck) -> list[str]:
    """The saga's journal entries and holds are keyed by its scheme (a unique constraint
    already keeps every key to one row)."""
    findings: list[str] = []
    entries = [(e.idempotency_key, e.saga_id) for e in ledger.entries()]
    holds = [(h.hold_key, h.saga_id) for h in ledger.holds()]
    for kind, keyed in (("entry", entries), ("hold", holds)):
        for key, owner in keyed:
            if owner == saga_id and not belongs(key):
                findings.append(f"{kind} key {key!r} does not follow the key scheme of {saga_id}")
    return findings


def hold_findings(ledger: Ledger) -> list[str]:
    """Holds neither posted nor voided."""
    return [
        f"hold {h.hold_key!r} is still {h.status.value}"
        for h in ledger.holds()
        if h.status not in (HoldStatus.POSTED, HoldStatus.VOIDED)
    ]
