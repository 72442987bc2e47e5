"""A key whose REJECTED run was reused: the compensation audit reads each run by its run id."""

from __future__ import annotations

import pytest

from sagas.audit import AuditStore
from sagas.engine import RunClaim
from sagas.ledger import Ledger
from sagas.verify import run_compensation_audit

SAGA = "transfer-reused"
REQUEST = {"amount": "1.00", "currency": "EUR"}

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def closing(store: AuditStore, run_id: str, status: str, amount: str) -> None:
    store.append(
        kind="terminal",
        saga_id=SAGA,
        dedupe_key=f"{SAGA}:terminal:{run_id}",
        payload={"status": status, "run_id": run_id, "input": {**REQUEST, "amount": amount}},
    )


def test_the_rejected_run_and_the_later_run_are_each_audited_against_their_own_run(
    store: AuditStore, ledger: Ledger
) -> None:
    closing(store, "run-1", "REJECTED", "-1.00")
    closing(store, "run-2", "COMPENSATED", "1.00")
    ledger.begin_step(RunClaim(saga_id=SAGA, saga_type="transfer", run_chain="run-2"), None)

    report = run_compensation_audit(
        ledger,
        store,
        {SAGA: "COMPENSATED"},
        run_statuses={"run-1": "REJECTED", "run-2": "COMPENSATED"},
    )

    assert report.findings == []
    assert [line.status for line in report.sagas] == ["REJECTED", "COMPENSATED"]
    assert report.sagas[0].ledger_check.endswith(
        "the ledger's effects under its id are run run-2's"
    )
    assert report.sagas[0].amount == "-1.00 EUR requested, not moved"


def test_a_run_temporal_shows_otherwise_than_its_record_is_still_a_finding(
    store: AuditStore, ledger: Ledger
) -> None:
    closing(store, "run-1", "REJECTED", "-1.00")
    closing(store, "run-2", "COMPENSATED", "1.00")

    report = run_compensation_audit(
        ledger,
        store,
        {SAGA: "COMPENSATED"},
        run_statuses={"run-1": "COMPLETED", "run-2": "COMPENSATED"},
    )

    assert report.findings == [f"{SAGA}: record 1 says REJECTED, Temporal COMPLETED"]
