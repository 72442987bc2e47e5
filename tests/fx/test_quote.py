"""On the time-skipping server: an expired quote moves no money; a conversion keeps every
currency balanced."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.fx import FxActivities
from sagas import SagaStatus, parse_money
from sagas.client import FundsagaClient
from sagas.fx import DEMO_RATES, FX_POSITION, FX_TRANSFER, FixedRateSource
from sagas.ledger import HoldStatus, Ledger, system_account_id
from sagas.registry import SagaRegistry, SagaType
from sagas.testing import directory_audit_store, new_task_queue, saga_worker, sqlite_ledger
from tests.fx.scenario import FX_SCENARIO, fund, fx_request


def with_ttl(ttl: timedelta) -> SagaType:
    """The built-in FX transfer, quoting the demo rates with this time to live."""
    source = FixedRateSource(DEMO_RATES, ttl=ttl)
    return dataclasses.replace(
        FX_SCENARIO.saga_type,
        activities=lambda c: FxActivities(c.ledger, c.faults, rates=source).all(),
    )


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = sqlite_ledger(tmp_path)
    fund(ledger)
    return ledger


@asynccontextmanager
async def client_for(
    env: WorkflowEnvironment, saga_type: SagaType, ledger: Ledger, tmp_path: Path
) -> AsyncIterator[FundsagaClient]:
    store = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    async with saga_worker(env, [saga_type], ledger, store, task_queue=queue):
        yield FundsagaClient(env.client, queue, ledger, registry=SagaRegistry([saga_type]))
    store.close_connections()


def balances(ledger: Ledger) -> dict[str, str]:
    return {a.account_id: str(a.balance) for a in ledger.accounts(include_system=True)}


async def test_an_expired_quote_is_a_business_error_before_any_money_moves(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    before = balances(ledger)
    key = f"fx-{uuid.uuid4().hex[:8]}"

    async with client_for(time_skipping_env, with_ttl(timedelta(0)), ledger, tmp_path) as client:
        await client.start(FX_TRANSFER, fx_request(key))
        outcome = await client.saga(FX_TRANSFER, key).outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.error_type) == (
        "reserve",
        "QuoteExpiredError",
    )
    assert balances(ledger) == before
    assert ledger.entries(saga_id=outcome.saga_id) == []
    # The reserve's compensation leaves only its tombstone, on no account, fencing a late hold.
    holds = ledger.holds(saga_id=outcome.saga_id)
    assert [(h.account_id, h.status) for h in holds] == [(None, HoldStatus.VOIDED)]
    assert ledger.check_invariants() == []


async def test_a_conversion_balances_each_currency_through_the_positions(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    key = f"fx-{uuid.uuid4().hex[:8]}"

    async with client_for(time_skipping_env, FX_SCENARIO.saga_type, ledger, tmp_path) as client:
        await client.start(FX_TRANSFER, fx_request(key, amount="10.10"))
        outcome = await client.saga(FX_TRANSFER, key).wait()

    assert outcome.status is SagaStatus.COMPLETED
    assert ledger.account("src").balance == parse_money("489.90", "EUR")
    assert ledger.account("dst").balance == parse_money("2629", "JPY")  # 1000 + 1628.625 → 1629
    assert ledger.account(system_account_id(FX_POSITION, "EUR")).balance == parse_money(
        "10.10", "EUR"
    )
    assert ledger.account(system_account_id(FX_POSITION, "JPY")).balance.minor == -1629
    assert ledger.check_invariants() == []
