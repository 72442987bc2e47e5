"""The checks of issue 31's faults: no saga parked by the infrastructure, every terminated saga
found and recovered, and record times that never go backwards within a chain."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from sagas.audit import AuditStore
from sagas.engine import SagaStatus
from sagas.ledger import EntryView, Ledger
from tooling.chaos._check import Check

RECOVERED = {SagaStatus.COMPLETED.value, SagaStatus.COMPENSATED.value, SagaStatus.RESOLVED.value}


def no_infrastructure_parking(parked: Mapping[str, str]) -> Check:
    """`parked`: by saga id, the infrastructure fault it parked on."""
    first = min(parked.items(), default=None)
    detail = f"{len(parked)} parked" + (f", first: {first[0]}: {first[1]}" if first else "")
    return Check("n) no saga parked by an infrastructure fault", not parked, detail)


def terminated_recovered(terminated: Sequence[str], recovered: Mapping[str, str] | None) -> Check:
    """`recovered`: by saga id, its status once recovered; None: the run never got to recover."""
    name = "o) every saga terminated from outside found and recovered"
    found = recovered or {}
    missing = [saga for saga in terminated if found.get(saga) not in RECOVERED]
    detail = f"{len(terminated)} terminated, {len(terminated) - len(missing)} recovered" + (
        f", first not: {sorted(missing)[0]}" if missing else ""
    )
    return Check(name, recovered is not None and not missing, detail)


def times_backwards(times: Iterable[datetime]) -> int:
    """How many times a record's time is earlier than the one before it in its chain."""
    count, latest = 0, None
    for time in times:
        if latest is not None and time < latest:
            count += 1
        latest = time if latest is None else max(latest, time)
    return count


def account_times_backwards(entries: Iterable[EntryView]) -> int:
    """How many times an entry's time is earlier than the one before it on a customer account
    it moves: each account's entries are written one after the other, under its row lock."""
    times: dict[str, list[datetime]] = {}
    for entry in sorted(entries, key=lambda entry: entry.entry_id):
        for posting in entry.postings:
            if not posting.account_id.startswith("@"):
                times.setdefault(posting.account_id, []).append(entry.created_at)
    return sum(times_backwards(account_times) for account_times in times.values())


def monotonic_times(store: AuditStore, ledger: Ledger) -> Check:
    """No audit record's time is earlier than an earlier one's in its chain, nor a journal
    entry's than an earlier one's on an account it moves: both take it from one clock, under
    the lock of their chain or account."""
    audit = store.records()
    journal = ledger.entries()
    audit_back = times_backwards(record.recorded_at for record in audit)
    journal_back = account_times_backwards(journal)
    return Check(
        "p) audit record and journal entry times never go backwards in their chains",
        audit_back == 0 and journal_back == 0,
        f"audit: {audit_back} of {len(audit)} backwards, journal: {journal_back} of {len(journal)}",
    )
