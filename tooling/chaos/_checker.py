"""After a chaos run quiesces: prove no money was lost or moved twice and every saga ended known."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import text

from activities.audit import anchor_journal
from sagas.app import verify_ledger
from sagas.audit import AnchorStore, AuditStore, Keyring
from sagas.engine import AuditKind, SagaStatus
from sagas.ledger import HoldStatus, Ledger

SETTLED = {
    SagaStatus.COMPLETED.value,
    SagaStatus.COMPENSATED.value,
    SagaStatus.NEEDS_ATTENTION.value,
}


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def _conservation(ledger: Ledger, funded: Mapping[str, int]) -> Check:
    totals: dict[str, int] = {}
    for account in ledger.accounts():
        totals[account.currency] = totals.get(account.currency, 0) + account.balance.minor
    ok = totals == dict(funded) and not [p for p in ledger.check_invariants() if "sum" in p]
    return Check("a) balances sum to funded total per currency", ok, f"{totals} vs {dict(funded)}")


def _no_double_postings(ledger: Ledger) -> Check:
    with ledger.engine.connect() as connection:
        duplicated = connection.execute(
            text(
                "SELECT idempotency_key FROM journal_entry GROUP BY idempotency_key"
                " HAVING COUNT(*) > 1"
            )
        ).all()
        entries = connection.execute(text("SELECT COUNT(*) FROM journal_entry")).scalar_one()
    return Check(
        "b) no idempotency key posted twice",
        not duplicated,
        f"{entries} entries, {len(duplicated)} dup",
    )


def _final_states(
    ledger: Ledger, statuses: Mapping[str, str], launched: int
) -> tuple[Check, list[str]]:
    stuck = [saga for saga, status in statuses.items() if status not in SETTLED]
    leaking = [
        saga
        for saga, status in statuses.items()
        if status == SagaStatus.COMPENSATED.value and ledger.net_effect(saga)
    ]
    counts = {s: list(statuses.values()).count(s) for s in sorted(set(statuses.values()))}
    ok = not stuck and not leaking and len(statuses) == launched
    detail = f"{counts}; {len(stuck)} not settled, {len(leaking)} compensated with net effect"
    return Check("c) every saga ended known; compensated = no net effect", ok, detail), stuck


def _holds(ledger: Ledger) -> Check:
    holds = ledger.holds()
    active = [h for h in holds if h.status is HoldStatus.ACTIVE]
    return Check(
        "d) every hold posted or voided", not active, f"{len(holds)} holds, {len(active)} active"
    )


def _audit(store: AuditStore, statuses: Mapping[str, str]) -> Check:
    chain = store.verify()
    terminal: dict[str, int] = {}
    parked: set[str] = set()
    for record in store.records():
        if record.kind == AuditKind.TERMINAL:
            terminal[record.saga_id] = terminal.get(record.saga_id, 0) + 1
        elif record.kind == AuditKind.NEEDS_ATTENTION:
            parked.add(record.saga_id)
    wrong = []
    for saga, status in statuses.items():
        expected = 0 if status == SagaStatus.COMPLETED.value else 1
        if status == SagaStatus.NEEDS_ATTENTION.value:
            ok = saga in parked and terminal.get(saga, 0) == 0
        else:
            ok = terminal.get(saga, 0) == expected
        if not ok:
            wrong.append(saga)
    detail = (
        f"chain {'intact' if chain.ok else 'BROKEN'} ({chain.records} records), {len(wrong)} wrong"
    )
    return Check(
        "e) one terminal audit record per saga not completed", chain.ok and not wrong, detail
    )


def _overdrafts(ledger: Ledger) -> Check:
    below = [a.account_id for a in ledger.accounts() if a.balance.minor < -a.overdraft.minor]
    return Check("f) no account below its overdraft", not below, f"{len(below)} below")


def _ledger_verifies(ledger: Ledger, anchors: AnchorStore, keyring: Keyring) -> Check:
    """What `fundsaga ledger verify` checks, after anchoring the journal as a worker would."""
    anchor_journal(ledger, anchors)
    verdict = verify_ledger(ledger, anchors, keyring)
    detail = (
        f"{verdict.entries} entries chained, signed and anchored"
        if verdict.ok
        else f"{len(verdict.findings)} findings, first: {verdict.findings[0]}"
    )
    return Check("g) the ledger verifies (chain, signatures, anchor)", verdict.ok, detail)


def _spent_funds(parked: Sequence[str]) -> Check:
    detail = f"{len(parked)} parked" + (f", first: {sorted(parked)[0]}" if parked else "")
    return Check("h) no saga parked because its payee spent the money", not parked, detail)


def check_run(
    ledger: Ledger,
    store: AuditStore,
    anchors: AnchorStore,
    keyring: Keyring,
    statuses: Mapping[str, str],
    funded: Mapping[str, int],
    launched: int,
    parked_by_spent_funds: Sequence[str],
) -> list[Check]:
    final, _ = _final_states(ledger, statuses, launched)
    return [
        _conservation(ledger, funded),
        _no_double_postings(ledger),
        final,
        _holds(ledger),
        _audit(store, statuses),
        _overdrafts(ledger),
        _ledger_verifies(ledger, anchors, keyring),
        _spent_funds(parked_by_spent_funds),
    ]
