"""The invariants every case must leave behind, as lists of findings (empty when sound)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sagas import Phase, SagaDefinition
from sagas.audit import AuditStore
from sagas.ledger import HoldStatus, Ledger, funding_account_id


def money_in_the_system(ledger: Ledger) -> dict[str, int]:
    """Per currency, the minor units held by every account but the outside world (@funding)."""
    totals: Counter[str] = Counter()
    for account in ledger.accounts(include_system=True):
        if account.account_id != funding_account_id(account.currency):
            totals[account.currency] += account.balance.minor
    return dict(totals)


def key_findings(ledger: Ledger, definition: SagaDefinition[Any, Any], saga_id: str) -> list[str]:
    """Each journal entry and hold has its own key, and the saga's keys are (saga, step, phase)."""
    allowed = {
        f"{saga_id}:{s.name}:{p}"
        for s in definition.steps
        for p in (Phase.ACTION, Phase.COMPENSATION)
    }
    findings: list[str] = []
    entries = [(e.idempotency_key, e.saga_id) for e in ledger.entries()]
    holds = [(h.hold_key, h.saga_id) for h in ledger.holds()]
    for kind, keyed in (("entry", entries), ("hold", holds)):
        for key, count in Counter(key for key, _ in keyed).items():
            if count > 1:
                findings.append(f"{kind} key {key!r} is used {count} times")
        for key, owner in keyed:
            if owner == saga_id and key not in allowed:
                findings.append(f"{kind} key {key!r} is not a (saga, step, phase) of {saga_id}")
    return findings


def hold_findings(ledger: Ledger) -> list[str]:
    """Holds neither posted nor voided."""
    return [
        f"hold {h.hold_key!r} is still {h.status.value}"
        for h in ledger.holds()
        if h.status not in (HoldStatus.POSTED, HoldStatus.VOIDED)
    ]


def audit_kinds(store: AuditStore, saga_id: str) -> tuple[str, ...]:
    return tuple(record.kind for record in store.records(saga_id=saga_id))
