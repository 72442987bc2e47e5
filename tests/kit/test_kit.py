"""The testing kit's own checks can fail: a wrong expectation, a foreign key, a late truth."""

from __future__ import annotations

import dataclasses
import time
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.testing import (
    Expected,
    Fault,
    FaultMatrix,
    MatrixCase,
    assert_eventually,
    conservation_findings,
    directory_audit_store,
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


def test_money_may_leave_only_through_the_declared_accounts() -> None:
    before, out_before = {"EUR": 10_000}, {"EUR": -10_000}

    paid_out = conservation_findings(before, out_before, {"EUR": 7_500}, {"EUR": -7_500})
    vanished = conservation_findings(before, out_before, {"EUR": 7_500}, {"EUR": -10_000})
    appeared = conservation_findings(before, {}, {"EUR": 10_001}, {})

    assert paid_out == []
    assert vanished == [
        "money in the system: EUR 10000 minor units before, 7500 after, "
        "but 0 left through the declared accounts"
    ]
    assert len(appeared) == 1
