"""A worker running transfers (their credit step failing transiently, so a test can kill one in
flight) and payouts against the provider simulator, on the session's dev server and a fresh
ledger (SQLite and PostgreSQL), with the collector that finds killed sagas."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import parse_faults, parse_money
from sagas.audit import AuditStore, open_audit_store
from sagas.client import FundsagaClient, SagaRecoveries
from sagas.ledger import Ledger
from sagas.servers import VisibilityCollector
from sagas.testing import ClearableFaults, dev_identity, kit_operator, new_task_queue
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS
from tests.payouts.conftest import provider

__all__ = ["provider"]

SLOW_CREDIT = "transfer/credit=transient"
"""Every transfer's credit fails and is retried before it compensates: a window in which a test
kills it with money held and captured."""
FAILING_UNDO = "transfer/capture.compensation=business@dave"
"""Taking back the capture of a transfer from dave is refused until the test clears it."""


@dataclass
class KilledRig:
    env: WorkflowEnvironment
    ledger: Ledger
    store: AuditStore
    client: FundsagaClient
    collector: VisibilityCollector
    faults: ClearableFaults

    def recoveries(self, operator: str) -> SagaRecoveries:
        return replace(self.client.recoveries(), operator=kit_operator(operator))

    def balance(self, account_id: str) -> str:
        return str(self.ledger.account(account_id).balance)


@pytest.fixture
def audit_store(tmp_path: Path) -> Iterator[AuditStore]:
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    yield store
    store.close_connections()


@pytest.fixture
def rig_faults() -> str:
    """The worker's FUNDSAGA_FAULTS; a module overrides it for sagas of its own."""
    return f"{SLOW_CREDIT};{FAILING_UNDO}"


@pytest.fixture
async def rig(
    provider: str,
    dev_env: WorkflowEnvironment,
    database_url: str,
    ledger: Ledger,
    audit_store: AuditStore,
    monkeypatch: pytest.MonkeyPatch,
    rig_faults: str,
) -> AsyncIterator[KilledRig]:
    """The worker and collector, and the `fundsaga` CLI pointed at them."""
    ledger.open_account("alice", "EUR", opening_balance=parse_money("1000.00", "EUR"))
    ledger.open_account("carol", "EUR")
    ledger.open_account("dave", "EUR", opening_balance=parse_money("500.00", "EUR"))
    ledger.open_account("customer", "EUR", opening_balance=parse_money("100.00", "EUR"))
    queue = new_task_queue()
    monkeypatch.setenv("TEMPORAL_ADDRESS", dev_env.client.service_client.config.target_host)
    monkeypatch.setenv("FUNDSAGA_TASK_QUEUE", queue)
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    faults = ClearableFaults(parse_faults(rig_faults).rules)
    operators = dev_identity().check()
    client = FundsagaClient(dev_env.client, queue, ledger)
    collector = VisibilityCollector(dev_env.client, queue, client.registry.names(), None)
    async with build_worker(
        dev_env.client, queue, ledger, audit_store, faults, operators=operators
    ):
        yield KilledRig(dev_env, ledger, audit_store, client, collector, faults)
