"""A ledger outage under 100+ sagas in flight (issue 31): the database of their ledger, a
PostgreSQL cluster of the test's own, stops as in a crash for a minute and comes back. Every
saga then closes, none parks, and none posted anything twice.

FUNDSAGA_OUTAGE_SECONDS lengthens the outage: `make outage-long` runs this file with ten minutes.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from sagas import Money, SagaStatus
from sagas.audit import open_audit_store
from sagas.client import FundsagaClient, SagaHandle
from sagas.engine import SAGA_STATUS
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.testing import (
    PostgresCluster,
    StopMode,
    assert_eventually,
    dev_identity,
    hold_findings,
)
from sagas.transfer import TRANSFER_SAGA
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.fixtures_temporal import new_task_queue

pytestmark = [pytest.mark.postgres, pytest.mark.long]

OUTAGE_SECONDS = int(os.environ.get("FUNDSAGA_OUTAGE_SECONDS", "60"))
SAGAS = 120
MIN_IN_FLIGHT = 100
ENTRIES_BEFORE_THE_OUTAGE = 40
"""Journal entries written when the database stops: the sagas are under way, few are done."""
PAYERS = [f"payer-{n}" for n in range(6)]
PAYEES = [f"payee-{n}" for n in range(6)]
FROZEN = "payee-frozen"
"""Every fourth saga pays this account: its credit is refused and the saga compensates."""
OPENING = Money.of(1_000_000, "EUR")
TRANSFER = TRANSFER_SAGA.saga_type
CLOSED = {SagaStatus.COMPLETED.value, SagaStatus.COMPENSATED.value}


@dataclass(frozen=True)
class Planned:
    key: str
    payer: str
    payee: str
    amount: Money

    def request(self) -> dict[str, str]:
        return {
            "idempotency_key": self.key,
            "source_account": self.payer,
            "destination_account": self.payee,
            "amount": self.amount.amount_text(),
            "currency": "EUR",
        }


PLAN = [
    Planned(
        f"outage-{n}",
        PAYERS[n % len(PAYERS)],
        FROZEN if n % 4 == 3 else PAYEES[n % len(PAYEES)],
        Money.of(100 + n, "EUR"),
    )
    for n in range(SAGAS)
]


@pytest.fixture
def ledger_on_own_cluster(own_postgres_cluster: PostgresCluster) -> Ledger:
    url = own_postgres_cluster.url()
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    for account in PAYERS:
        ledger.open_account(account, "EUR", opening_balance=OPENING)
    for account in [*PAYEES, FROZEN]:
        ledger.open_account(account, "EUR")
    ledger.freeze(FROZEN)
    return ledger


@pytest.fixture
async def client(
    dev_env: WorkflowEnvironment, ledger_on_own_cluster: Ledger, tmp_path: Path
) -> AsyncIterator[FundsagaClient]:
    """A real worker on the session's dev server, its ledger on the test's own cluster."""
    queue = new_task_queue()
    audit_store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    operators = dev_identity().check()
    async with build_worker(
        dev_env.client, queue, ledger_on_own_cluster, audit_store, operators=operators
    ):
        # No ledger: transfers to the frozen payee are refused by their step, not before.
        yield FundsagaClient(dev_env.client, queue)
    audit_store.close_connections()
    ledger_on_own_cluster.engine.dispose()


def journal_entries(ledger: Ledger) -> int:
    with ledger.engine.connect() as connection:
        entries: int = connection.execute(text("SELECT COUNT(*) FROM journal_entry")).scalar_one()
        return entries


async def saga_status(saga: SagaHandle) -> str:
    """The saga's status: its final one once Temporal closed it, else the one it shows."""
    described = await saga.describe()
    status = described.typed_search_attributes.get(SAGA_STATUS) or ""
    closed = described.status is WorkflowExecutionStatus.COMPLETED
    return status if closed or status not in CLOSED else "CLOSING"


async def statuses(sagas: list[SagaHandle]) -> Counter[str]:
    return Counter(await asyncio.gather(*(saga_status(saga) for saga in sagas)))


def wrong_effects(ledger: Ledger, ended: dict[str, str]) -> list[str]:
    """Sagas whose postings are not exactly one transfer (completed) or nothing (compensated)."""
    wrong = []
    for planned in PLAN:
        saga_id = f"{TRANSFER}-{planned.key}"
        effect = ledger.net_effect(saga_id)
        once = {planned.payer: -planned.amount, planned.payee: planned.amount}
        expected = once if ended[saga_id] == SagaStatus.COMPLETED.value else {}
        if effect != expected:
            wrong.append(f"{saga_id} ({ended[saga_id]}): {effect}")
    return wrong


@pytest.mark.timeout(OUTAGE_SECONDS + 900)
async def test_sagas_in_flight_wait_out_a_ledger_outage_and_all_close(
    client: FundsagaClient, ledger_on_own_cluster: Ledger, own_postgres_cluster: PostgresCluster
) -> None:
    ledger = ledger_on_own_cluster
    await asyncio.gather(*(client.start(TRANSFER, planned.request()) for planned in PLAN))
    sagas = [client.saga(TRANSFER, planned.key) for planned in PLAN]

    def under_way() -> None:
        assert journal_entries(ledger) >= ENTRIES_BEFORE_THE_OUTAGE

    await assert_eventually(
        under_way, timeout=timedelta(minutes=2), interval=timedelta(milliseconds=20)
    )

    own_postgres_cluster.stop(StopMode.IMMEDIATE)
    at_outage = await statuses(sagas)
    in_flight = SAGAS - sum(n for status, n in at_outage.items() if status in CLOSED)
    print(f"\nat the outage: {dict(at_outage)}; {in_flight} in flight")
    assert in_flight >= MIN_IN_FLIGHT, f"only {in_flight} sagas in flight: {at_outage}"
    await asyncio.sleep(OUTAGE_SECONDS)
    during = await statuses(sagas)
    own_postgres_cluster.start()

    async def settled() -> Counter[str]:
        now = await statuses(sagas)
        assert set(now) <= CLOSED | {SagaStatus.NEEDS_ATTENTION.value}, now
        return now

    ended = await assert_eventually(
        settled, timeout=timedelta(minutes=10), interval=timedelta(seconds=1)
    )
    by_saga = {saga.saga_id: await saga_status(saga) for saga in sagas}
    wrong = wrong_effects(ledger, by_saga)
    print(
        f"after {OUTAGE_SECONDS} s of outage: {SAGAS} sagas, at its end {dict(during)}; "
        f"closed {sum(ended[s] for s in CLOSED)}, parked {ended[SagaStatus.NEEDS_ATTENTION.value]}"
        f", posted other than once {len(wrong)}: {dict(ended)}"
    )
    assert ended[SagaStatus.NEEDS_ATTENTION.value] == 0, ended
    assert sum(ended[s] for s in CLOSED) == SAGAS
    assert ended[SagaStatus.COMPENSATED.value] == sum(p.payee == FROZEN for p in PLAN)
    assert wrong == []
    assert hold_findings(ledger) == []
    assert ledger.check_invariants() == []
