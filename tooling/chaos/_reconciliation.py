"""The rail's statements of the run, imported and matched: every line the simulator booked is
a payout the ledger settled, and every payout the ledger settled is on a statement."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta

from sagas.ledger import Ledger
from sagas.reconcile import ReconcilePolicy, Reconciliation, read_statement
from sagas.registry import built_in_registry
from tooling.chaos._check import Check
from tooling.provider import ProviderProcess

AT_ONCE = ReconcilePolicy(grace=timedelta())
"""The run is over: a payout the statements lack is a break now, not after a day's grace."""


def import_statements(ledger: Ledger, provider: ProviderProcess, since: date) -> Reconciliation:
    """Import the provider's camt.053 of each day of the run in each currency of the ledger."""
    # A statement is complete up to the second it is made: the run's last settlement is before.
    time.sleep(1.1)
    books = Reconciliation(ledger, [t.definition for t in built_in_registry()], AT_ONCE)
    currencies = sorted({account.currency for account in ledger.accounts()})
    day = since
    while day <= datetime.now(UTC).date():
        for currency in currencies:
            data = provider.statement(day, "camt053", currency)
            name = f"camt053-{currency}-{day.isoformat()}.xml"
            books.import_statement(
                read_statement(data), data, name=name, imported_by="chaos", action_id=name
            )
        day += timedelta(days=1)
    return books


def reconciled(books: Reconciliation) -> Check:
    movements = books.movements()
    matched = [m for m in movements if m.status.startswith("matched")]
    breaks = books.breaks()
    kinds = sorted({str(b.kind) for b in breaks})
    detail = (
        f"{len(matched)} of {len(movements)} rail movements matched to statement lines, "
        f"{len(breaks)} break(s){': ' + ', '.join(kinds) if kinds else ''}"
    )
    ok = not breaks and len(matched) == len(movements)
    return Check("r) the rail's statements reconcile: every line matched, no break", ok, detail)
