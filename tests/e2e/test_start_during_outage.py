"""A saga started while its ledger is down: one typed, retryable error and nothing started; the
same start with the same key succeeds once the ledger is back, and the saga completes once."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine, inspect, text
from temporalio.testing import WorkflowEnvironment

from sagas import LedgerUnavailableError, SagaNotFoundError, SagaStatus, TransientError
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, saga_id
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.testing import PostgresCluster, StopMode, dev_identity
from sagas.transfer import TRANSFER_SAGA
from sagas.worker import build_worker
from tests.e2e.conftest import eur
from tests.fixtures_audit import TEST_SIGNER
from tests.fixtures_temporal import new_task_queue

pytestmark = pytest.mark.postgres

TRANSFER = TRANSFER_SAGA.saga_type
KEY = "start-during-outage"
REQUEST = {
    "idempotency_key": KEY,
    "source_account": "alice",
    "destination_account": "bob",
    "amount": "25.00",
    "currency": "EUR",
}


@pytest.fixture
async def client_on_own_cluster(
    dev_env: WorkflowEnvironment, own_postgres_cluster: PostgresCluster, audit_store: AuditStore
) -> AsyncIterator[FundsagaClient]:
    """A client and a worker whose ledger is on the test's own cluster, which it can stop."""
    url = own_postgres_cluster.url()
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=eur("100.00"))
    ledger.open_account("bob", "EUR")
    queue = new_task_queue()
    operators = dev_identity().check()
    async with build_worker(dev_env.client, queue, ledger, audit_store, operators=operators):
        yield FundsagaClient(dev_env.client, queue, ledger)
    ledger.engine.dispose()


def rows_of_saga(engine: Engine, saga: str) -> dict[str, int]:
    """Per table with a saga_id column, the rows that name `saga`."""
    tables = inspect(engine).get_table_names()
    with engine.connect() as connection:
        return {
            table: connection.execute(
                text(f"SELECT COUNT(*) FROM {table} WHERE saga_id = :saga"), {"saga": saga}
            ).scalar_one()
            for table in tables
            if "saga_id" in {column["name"] for column in inspect(engine).get_columns(table)}
        }


async def test_a_start_during_an_outage_starts_nothing_and_the_same_start_succeeds_after(
    client_on_own_cluster: FundsagaClient, own_postgres_cluster: PostgresCluster
) -> None:
    client = client_on_own_cluster
    assert client.ledger is not None
    own_postgres_cluster.stop(StopMode.IMMEDIATE)

    with pytest.raises(LedgerUnavailableError) as refused:
        await client.start(TRANSFER, REQUEST)

    assert isinstance(refused.value, TransientError)
    assert KEY in str(refused.value)
    with pytest.raises(SagaNotFoundError):
        await client.saga(TRANSFER, KEY).describe()
    own_postgres_cluster.start()
    touched = rows_of_saga(client.ledger.engine, saga_id(TRANSFER, KEY))
    assert "journal_entry" in touched
    assert set(touched.values()) == {0}

    handle = await client.start(TRANSFER, REQUEST)

    outcome = await handle.result()
    assert outcome.status is SagaStatus.COMPLETED
    balances = {a.account_id: a.balance for a in client.ledger.accounts()}
    assert balances == {"alice": eur("75.00"), "bob": eur("25.00")}
