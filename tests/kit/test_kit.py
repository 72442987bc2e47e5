"""The testing kit's own checks can fail: a wrong expectation, a foreign key, a late truth."""

from __future__ import annotations

import dataclasses
import time
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaOutcome, SagaRequest, SagaStatus, parse_money
from sagas.ledger import Leg, system_account_id
from sagas.testing import (
    Expected,
    Fault,
    FaultMatrix,
    MatrixCase,
    assert_eventually,
    conservation_findings,
    customer_money,
    directory_audit_store,
    money_on,
    sqlite_ledger,
    step_keys,
)
from tests.escrow.saga import ESCROW_SAGA
from tests.escrow.scenario import ESCROW_SCENARIO


def claims_completion(case: MatrixCase) -> Expected:
    """A saga author's wrong belief: a refused hold still completes."""
    return dataclasses.replace(case.expected, status=SagaStatus.COMPLETED, failure=None)


async def test_a_wrong_expected_end_is_a_finding(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    wrong = FaultMatrix(dataclasses.replace(ESCROW_SCENARIO, expected_end=claims_completion))
    (case,) = [
        c
        for c in wrong.cases
        if c.step.name == "hold" and c.phase == "action" and c.fault is Fault.BUSINESS
    ]
    ledger, store = sqlite_ledger(tmp_path), directory_audit_store(tmp_path / "audit")

    findings = await wrong.check(case, time_skipping_env, ledger, store)

    assert "status: expected 'COMPLETED', got 'COMPENSATED'" in findings
    assert any(
        f.startswith("failure: expected None, got ('hold', 'business_error'") for f in findings
    )
    store.close_connections()
    ledger.close_connections()


def outside(request: SagaRequest, outcome: SagaOutcome) -> list[str]:
    """A check of effects outside the ledger: what it is given, as a finding, then one that
    fails as an assertion would."""
    assert outcome.status is not SagaStatus.COMPENSATED, f"{outcome.saga_id} compensated"
    return [f"{request.idempotency_key} {outcome.status.value}"]


async def test_the_check_outside_the_ledger_runs_after_each_case(
    time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    checked = FaultMatrix(dataclasses.replace(ESCROW_SCENARIO, external_effects=outside))
    ended = {}
    for fault in (Fault.TIMEOUT_ONCE, Fault.BUSINESS):
        (case,) = [
            c
            for c in checked.cases
            if c.step.name == "hold" and c.phase == "action" and c.fault is fault
        ]
        ended[fault] = await checked.check_in(case, time_skipping_env, tmp_path / fault.value)

    (completed,) = ended[Fault.TIMEOUT_ONCE]
    assert completed.startswith("outside the ledger: matrix-")
    assert completed.endswith(" COMPLETED")
    (compensated,) = ended[Fault.BUSINESS]
    assert compensated.startswith("outside the ledger: escrow-matrix-")
    assert compensated.endswith(" compensated")


def test_the_step_key_scheme_takes_suffixes_and_refuses_other_keys() -> None:
    belongs = step_keys("escrow-k1", ESCROW_SAGA)

    assert belongs("escrow-k1:hold:action")
    assert belongs("escrow-k1:release:compensation")
    assert belongs("escrow-k1:hold:action:fee")
    assert not belongs("escrow-k1:hold:action:")
    assert not belongs("escrow-k1:refund:action")
    assert not belongs("escrow-k2:hold:action")
    assert not belongs("escrow-k1:hold")


async def test_assert_eventually_returns_once_the_check_holds() -> None:
    ready_at = time.monotonic() + 0.3

    def ready() -> str:
        assert time.monotonic() >= ready_at, "not yet"
        return "ready"

    assert await assert_eventually(ready, timeout=timedelta(seconds=5)) == "ready"


async def test_assert_eventually_raises_the_last_failure_when_time_runs_out() -> None:
    async def never() -> None:
        raise AssertionError("still pending")

    with pytest.raises(AssertionError, match="still pending") as raised:
        await assert_eventually(never, timeout=timedelta(milliseconds=200))

    assert "still failing after 0.2 s" in (raised.value.__notes__ or [])


def test_customers_money_may_go_only_to_the_declared_accounts(tmp_path: Path) -> None:
    ledger = sqlite_ledger(tmp_path)
    ledger.declare(system_accounts=["rail"], entry_kinds=["payout"])
    ledger.open_account("c", "EUR", opening_balance=parse_money("100.00", "EUR"))
    rail = system_account_id("rail", "EUR")
    customers, on_rail = customer_money(ledger), money_on(ledger, [rail])
    nothing_declared = money_on(ledger, [])

    ledger.post(
        "k1",
        [Leg("c", -parse_money("40.00", "EUR")), Leg(rail, parse_money("40.00", "EUR"))],
        kind="payout",
        saga_id="s1",
    )

    after = customer_money(ledger)
    assert conservation_findings(customers, on_rail, after, money_on(ledger, [rail])) == []
    assert conservation_findings(customers, nothing_declared, after, money_on(ledger, [])) == [
        "money: customers' EUR changed by -4000 minor units, the declared accounts' by 0"
    ]
    ledger.close_connections()
