"""The checks of issue 31's faults: no saga parked by the infrastructure, every terminated saga
found and recovered, and record times that never go backwards within a chain."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from sagas.audit import AuditStore
from sagas.engine import SagaStatus
from sagas.ledger import Ledger
from tooling.chaos._check import Check
from tooling.chaos._recovery import RECOVERY_NOT_BUILT

RECOVERED = {SagaStatus.COMPLETED.value, SagaStatus.COMPENSATED.value, SagaStatus.RESOLVED.value}


def no_infrastructure_parking(parked: Mapping[str, str]) -> Check:
    """`parked`: by saga id, the infrastructure fault it parked on."""
    first = min(parked.items(), default=None)
    detail = f"{len(parked)} parked" + (f", first: {first[0]}: {first[1]}" if first else "")
    return Check("n) no saga parked by an infrastructure fault", not parked, detail)


def terminated_recovered(terminated: Sequence[str], recovered: Mapping[str, str] | None) -> Check:
    name = "o) every saga terminated from outside found and recovered"
    if recovered is None:
        return Check(name, True, f"{len(terminated)} terminated", skipped=RECOVERY_NOT_BUILT)
    missing = [saga for saga in terminated if recovered.get(saga) not in RECOVERED]
    detail = f"{len(terminated)} terminated, {len(terminated) - len(missing)} recovered" + (
        f", first not: {sorted(missing)[0]}" if missing else ""
    )
    return Check(name, bool(terminated) and not missing, detail)


def times_backwards(times: Iterable[datetime]) -> int:
    """How many times a record's time is earlier than the one before it in its chain."""
    count, latest = 0, None
    for time in times:
        if latest is not None and time < latest:
            count += 1
        latest = time if latest is None else max(latest, time)
    return count


def monotonic_times(store: AuditStore, ledger: Ledger) -> Check:
    """In sequence order, no audit record's time is earlier than an earlier record's.

    The journal's count is shown, not checked: its entries take their time before they queue on
    the chain's head, so concurrent appends can land out of time order until they take it from
    one trusted clock (issue 31, item 5)."""
    audit = store.records()
    journal = sorted(ledger.entries(), key=lambda entry: entry.sequence)
    audit_back = times_backwards(record.recorded_at for record in audit)
    journal_back = times_backwards(entry.created_at for entry in journal)
    return Check(
        "p) audit record times never go backwards in the chain",
        audit_back == 0,
        f"{audit_back} of {len(audit)} backwards (journal, not checked yet: {journal_back} of "
        f"{len(journal)})",
    )
