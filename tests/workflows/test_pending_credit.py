"""The transfer's credit stays pending, unspendable, until its last step releases it.

Real activities and ledger on the time-skipping server: settle is made to fail for a while,
so the saga is caught between its credit and its release.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import InsufficientFundsError, SagaOutcome, SagaStatus, parse_faults, parse_money
from sagas.audit import open_audit_store
from sagas.client import FundsagaClient
from sagas.foundations import Money, upgrade_database
from sagas.ledger import HoldStatus, Ledger
from sagas.testing import assert_eventually
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_temporal import new_task_queue

AMOUNT = "245.05"


def eur(text: str) -> Money:
    return parse_money(text, "EUR")


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    """alice pays bob, who has 20.00 of his own and spends at the shop."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    upgrade_database(url)
    instance = Ledger.from_url(url)
    instance.open_account("alice", "EUR", opening_balance=eur("1000.00"))
    instance.open_account("bob", "EUR", opening_balance=eur("20.00"))
    instance.open_account("shop", "EUR")
    yield instance
    instance.close_connections()


@asynccontextmanager
async def transfer_running(
    env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path, faults: str
) -> AsyncIterator[tuple[FundsagaClient, str]]:
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    queue = new_task_queue()
    key = f"pending-{queue}"
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "amount": AMOUNT,
        "currency": "EUR",
    }
    async with build_worker(env.client, queue, ledger, store, parse_faults(faults)):
        client = FundsagaClient(env.client, queue, ledger)
        await client.start("transfer", request)
        yield client, key
    store.close_connections()


def credited_not_released(ledger: Ledger) -> None:
    bob = ledger.account("bob")
    assert (bob.balance, bob.held, bob.available) == (eur("265.05"), eur(AMOUNT), eur("20.00"))


async def test_between_credit_and_release_the_money_is_in_the_balance_but_not_spendable(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    async with transfer_running(
        time_skipping_env, ledger, tmp_path, "settle=transient*3"
    ) as running:
        client, key = running
        await assert_eventually(lambda: credited_not_released(ledger))
        with pytest.raises(InsufficientFundsError):
            ledger.transfer("bob-pays", "bob", "shop", eur("20.01"), saga_id="bob-pays")
        outcome: SagaOutcome = await client.saga("transfer", key).outcome()

    assert outcome.status is SagaStatus.COMPLETED
    bob = ledger.account("bob")
    assert (bob.balance, bob.available) == (eur("265.05"), eur("265.05"))
    assert bob.held.minor == 0
    assert [h.status for h in ledger.holds(saga_id=outcome.saga_id)] == [
        HoldStatus.POSTED,
        HoldStatus.VOIDED,
    ]
    assert ledger.check_invariants() == []


async def test_a_transfer_whose_payee_spent_all_it_could_compensates_without_parking(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    async with transfer_running(time_skipping_env, ledger, tmp_path, "settle=transient") as running:
        client, key = running
        await assert_eventually(lambda: credited_not_released(ledger))
        with pytest.raises(InsufficientFundsError):
            ledger.transfer("bob-pays-all", "bob", "shop", eur("265.05"), saga_id="bob-pays")
        ledger.transfer("bob-pays", "bob", "shop", ledger.account("bob").available, saga_id="bob")
        outcome = await client.saga("transfer", key).outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.reason) == ("settle", "retries_exhausted")
    assert [c.step_name for c in outcome.compensations] == [
        "settle",
        "credit",
        "capture",
        "reserve",
    ]
    assert {c.result for c in outcome.compensations} == {"compensated"}
    assert ledger.account("alice").balance == eur("1000.00")
    assert ledger.account("bob").balance == Money.of(0, "EUR")
    assert ledger.account("shop").balance == eur("20.00")
    assert ledger.net_effect(outcome.saga_id) == {}
    assert HoldStatus.ACTIVE not in {h.status for h in ledger.holds()}
    assert ledger.check_invariants() == []
