"""After a chaos run quiesces: prove no money was lost or moved twice and every saga ended known."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import text

from activities.audit import anchor_journal
from sagas.audit import AnchorStore, AuditStore, Keyring
from sagas.engine import AuditKind, BatchOutcome, SagaStatus
from sagas.ledger import HoldStatus, Ledger, funding_account_id
from sagas.payouts import PAYOUT_BATCH
from sagas.verify import LedgerWitness, awaiting_witness, entry_witness_findings, verify_ledger
from tooling.chaos._batch_checks import batches
from tooling.chaos._catalog_checks import fees, fx_positions, paid_to_rail, rail, sweeps
from tooling.chaos._check import Check
from tooling.chaos._outage_checks import (
    monotonic_times,
    no_infrastructure_parking,
    terminated_recovered,
)
from tooling.chaos._plan import ChaosPlan
from tooling.chaos._rail import RailPayout
from tooling.chaos._spending import spend_prefix

TERMINAL = {SagaStatus.COMPLETED.value, SagaStatus.COMPENSATED.value}
"""Where every saga of a chaos run must end: the plan intends none to park."""


def _conservation(ledger: Ledger, funded: Mapping[str, int], paid_out: Mapping[str, int]) -> Check:
    """Customer and system accounts (all but @funding) hold what was funded, less what
    settled payouts sent out through the rail."""
    totals = dict.fromkeys(funded, 0)
    for account in ledger.accounts(include_system=True):
        if account.account_id != funding_account_id(account.currency):
            totals[account.currency] = totals.get(account.currency, 0) + account.balance.minor
    expected = {code: total - paid_out.get(code, 0) for code, total in funded.items()}
    ok = totals == expected and not [p for p in ledger.check_invariants() if "sum" in p]
    return Check(
        "a) per currency: all accounts hold funded - paid out to the rail",
        ok,
        f"{totals} vs {expected} (paid out {dict(sorted(paid_out.items()))})",
    )


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


def _final_states(ledger: Ledger, statuses: Mapping[str, str], launched: int) -> Check:
    stuck = [saga for saga, status in statuses.items() if status not in TERMINAL]
    leaking = [
        saga
        for saga, status in statuses.items()
        if status == SagaStatus.COMPENSATED.value and ledger.net_effect(saga)
    ]
    counts = dict(sorted(Counter(statuses.values()).items()))
    ok = not stuck and not leaking and len(statuses) == launched
    detail = (
        f"{counts}; {len(stuck)} not completed or compensated, "
        f"{len(leaking)} compensated with net effect"
        + (f", first stuck: {sorted(stuck)[0]}" if stuck else "")
    )
    return Check("c) every saga terminal; compensated = no net effect", ok, detail)


def _holds(ledger: Ledger, unrecovered: set[str]) -> Check:
    holds = [h for h in ledger.holds() if h.saga_id not in unrecovered]
    active = [h for h in holds if h.status is HoldStatus.ACTIVE]
    return Check(
        "d) every hold posted or voided", not active, f"{len(holds)} holds, {len(active)} active"
    )


def _audit(store: AuditStore, statuses: Mapping[str, str], batch_ids: set[str]) -> Check:
    """A batch ends COMPLETED and writes no terminal record but one listing its items."""
    chain = store.verify()
    terminal: Counter[str] = Counter()
    listed: Counter[str] = Counter()
    parked: set[str] = set()
    recovered: Counter[str] = Counter()
    for record in store.records():
        if record.kind == AuditKind.TERMINAL:
            terminal[record.saga_id] += 1
        elif record.kind == AuditKind.SAGA_RECOVERED:
            recovered[record.saga_id] += 1
        elif record.kind == AuditKind.BATCH_COMPLETED:
            listed[record.saga_id] += 1
        elif record.kind == AuditKind.NEEDS_ATTENTION:
            parked.add(record.saga_id)
    wrong = [saga for saga in listed if saga not in batch_ids]
    for saga, status in statuses.items():
        expected = 0 if status == SagaStatus.COMPLETED.value else 1
        if recovered[saga]:
            # A saga killed from outside closes by its recovery's one record, whatever its end.
            ok = recovered[saga] == 1 and terminal[saga] == 0
        elif status == SagaStatus.NEEDS_ATTENTION.value:
            ok = saga in parked and terminal[saga] == 0
        else:
            ok = terminal[saga] == expected
        if saga in batch_ids:
            ok = ok and listed[saga] == (1 if status == SagaStatus.COMPLETED.value else 0)
        if not ok:
            wrong.append(saga)
    detail = (
        f"chain {'intact' if chain.ok else 'BROKEN'} ({chain.records} records, "
        f"{sum(listed.values())} batch records), {len(wrong)} wrong"
        + (f", first: {sorted(wrong)[0]}" if wrong else "")
    )
    return Check(
        "e) one terminal audit record per saga not completed, one item list per batch",
        chain.ok and not wrong,
        detail,
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


def _witnessed(ledger: Ledger, witness: LedgerWitness | None, spends: str) -> Check:
    """What `fundsaga ledger verify` compares with Temporal: every entry has a witness. The
    payees' spends (keys starting `spends`) are the run's own writes outside the engine: each
    must be found without one, as any such entry is, and nothing else may be."""
    name = "q) every entry witnessed by a saga's history or an audited funding, but the spends"
    if witness is None:
        return Check(name, False, "Temporal's histories were not read")
    entries, temporal, records = witness.entries, witness.temporal, witness.records
    findings = entry_witness_findings(entries, temporal, records, journal=ledger.entries())
    awaiting = awaiting_witness(entries, temporal, records)
    spent = [e for e in entries if e.idempotency_key.startswith(spends)]
    unspent = [f for f in findings if not f.startswith(f"entry '{spends}")]
    detail = (
        f"{len(entries)} entries, {len(temporal.seen)} receipts in Temporal; "
        f"{len(findings) - len(unspent)} of {len(spent)} spends found unwitnessed, "
        f"{len(awaiting)} awaited, {len(unspent)} other findings"
        + (f", first: {unspent[0]}" if unspent else "")
    )
    ok = not unspent and not awaiting and len(findings) - len(unspent) == len(spent)
    return Check(name, ok, detail)


def _spent_funds(parked: Sequence[str]) -> Check:
    detail = f"{len(parked)} parked" + (f", first: {sorted(parked)[0]}" if parked else "")
    return Check("h) no saga parked because its payee spent the money", not parked, detail)


def check_run(
    ledger: Ledger,
    store: AuditStore,
    anchors: AnchorStore,
    keyring: Keyring,
    plan: ChaosPlan,
    statuses: Mapping[str, str],
    funded: Mapping[str, int],
    parked_by_spent_funds: Sequence[str],
    at_rail: Mapping[str, RailPayout | None],
    batch_outcomes: Mapping[str, BatchOutcome],
    faults: FaultsSeen,
    witness: LedgerWitness | None = None,
) -> list[Check]:
    """`statuses` by saga id, the batches' items among them; `at_rail` what the provider holds
    per payout key; `batch_outcomes` by batch saga id; `witness` what Temporal's histories and
    the audit trail saw (None: not read, a failed check).

    A saga terminated from outside and not recovered is left out of the checks of sagas' ends,
    holds and audit records: until it is recovered it holds what it took."""
    paid_out = paid_to_rail(ledger)
    batch_ids = {saga.saga_id for saga in plan.of_type(PAYOUT_BATCH)}
    unrecovered = set(faults.terminated) - set(faults.recovered or {})
    ended = {saga: status for saga, status in statuses.items() if saga not in unrecovered}
    return [
        _conservation(ledger, funded, paid_out),
        _no_double_postings(ledger),
        _final_states(ledger, ended, len(plan.followed()) - len(unrecovered)),
        _holds(ledger, unrecovered),
        _audit(store, ended, batch_ids),
        _overdrafts(ledger),
        _ledger_verifies(ledger, anchors, keyring),
        _spent_funds(parked_by_spent_funds),
        fx_positions(ledger, plan, statuses),
        fees(ledger, plan, statuses),
        rail(ledger, plan, statuses, at_rail, paid_out),
        batches(plan, statuses, batch_outcomes),
        sweeps(ledger, plan, statuses),
        no_infrastructure_parking(faults.parked_by_infrastructure),
        terminated_recovered(faults.terminated, faults.recovered),
        monotonic_times(store, ledger),
        _witnessed(ledger, witness, spend_prefix(plan)),
    ]


@dataclass(frozen=True)
class FaultsSeen:
    """What the run saw of issue 31's faults."""

    parked_by_infrastructure: Mapping[str, str]
    """By saga id, the infrastructure fault it parked on."""
    terminated: Sequence[str]
    """Sagas terminated from outside mid-run."""
    recovered: Mapping[str, str] | None
    """By terminated saga id, its status once found and recovered; None: the run never got
    to recover them."""
