"""Invariants a saga must leave in the ledger, as lists of findings (empty when sound)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sagas.ledger import HoldStatus, Ledger, funding_account_id
from sagas.testing._scenario import KeyCheck


def money_in_the_system(ledger: Ledger, leaves_through: Iterable[str] = ()) -> dict[str, int]:
    """Per currency, the minor units on every account but the outside world (@funding) and
    the accounts money legitimately leaves through."""
    outside = set(leaves_through)
    totals: Counter[str] = Counter()
    for account in ledger.accounts(include_system=True):
        if account.account_id == funding_account_id(account.currency):
            continue
        if account.account_id not in outside:
            totals[account.currency] += account.balance.minor
    return {code: total for code, total in totals.items() if total}


def key_findings(ledger: Ledger, saga_id: str, belongs: KeyCheck) -> list[str]:
    """Each journal entry and hold has its own key, and the saga's keys follow its scheme."""
    findings: list[str] = []
    entries = [(e.idempotency_key, e.saga_id) for e in ledger.entries()]
    holds = [(h.hold_key, h.saga_id) for h in ledger.holds()]
    for kind, keyed in (("entry", entries), ("hold", holds)):
        for key, count in Counter(key for key, _ in keyed).items():
            if count > 1:
                findings.append(f"{kind} key {key!r} is used {count} times")
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
