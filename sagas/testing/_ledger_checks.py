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


def money_out(ledger: Ledger, leaves_through: Iterable[str]) -> dict[str, int]:
    """Per currency, what the accounts money leaves through hold (a system account that was
    never used holds nothing)."""
    totals: Counter[str] = Counter()
    for account_id in set(leaves_through):
        account = ledger.find_account(account_id)
        if account is not None:
            totals[account.currency] += account.balance.minor
    return dict(totals)


def conservation_findings(
    inside_before: dict[str, int],
    out_before: dict[str, int],
    inside_after: dict[str, int],
    out_after: dict[str, int],
) -> list[str]:
    """Money in the system changed only by what left through the declared accounts."""
    findings: list[str] = []
    for code in sorted(inside_before.keys() | inside_after.keys() | out_after.keys()):
        left = out_after.get(code, 0) - out_before.get(code, 0)
        expected = inside_before.get(code, 0) - left
        if inside_after.get(code, 0) != expected:
            findings.append(
                f"money in the system: {code} {inside_before.get(code, 0)} minor units before, "
                f"{inside_after.get(code, 0)} after, but {left} left through the declared accounts"
            )
    return findings


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
