"""A real worker on the session's dev server, bound to a fresh ledger (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import Money, parse_faults, parse_money
from sagas.audit import AuditStore, open_audit_store
from sagas.cli import run_cli
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.testing import dev_identity, fund_by_two, kit_operator
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER, write_public_key
from tests.fixtures_temporal import new_task_queue


def eur(text: str) -> Money:
    return parse_money(text, "EUR", allow_zero=True)


@pytest.fixture
def funded(ledger: Ledger) -> Ledger:
    ledger.open_account("alice", "EUR", opening_balance=eur("1000.00"))
    ledger.open_account("bob", "EUR", opening_balance=eur("50.00"))
    ledger.open_account("carol", "EUR")
    ledger.open_account("yen", "JPY")
    return ledger


@pytest.fixture
async def funded_by_two(
    dev_env: WorkflowEnvironment, cli_task_queue: str, ledger: Ledger, audit_store: AuditStore
) -> Ledger:
    """The accounts of `funded`, their money brought in as operations bring it: proposed by one
    operator and approved by another on the CLI's task queue, so that the audit trail and
    Temporal witness it (`ledger verify` finds an opening balance posted straight in)."""
    for account_id in ("alice", "bob", "carol"):
        ledger.open_account(account_id, "EUR")
    ledger.open_account("yen", "JPY")
    operators = dev_identity().check()
    async with build_worker(
        dev_env.client, cli_task_queue, ledger, audit_store, operators=operators
    ):
        for account_id, amount in (("alice", "1000.00"), ("bob", "50.00")):
            await fund_by_two(dev_env.client, cli_task_queue, account_id, eur(amount))
    return ledger


@pytest.fixture
def audit_store(tmp_path: Path) -> Iterator[AuditStore]:
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    yield store
    store.close_connections()


@pytest.fixture
async def client(
    dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> AsyncIterator[FundsagaClient]:
    task_queue = new_task_queue()
    operators = dev_identity().check()
    async with build_worker(dev_env.client, task_queue, funded, audit_store, operators=operators):
        yield FundsagaClient(dev_env.client, task_queue, funded, operator=kit_operator("ops"))


@pytest.fixture
async def faulty_client(
    dev_env: WorkflowEnvironment,
    funded: Ledger,
    audit_store: AuditStore,
    request: pytest.FixtureRequest,
) -> AsyncIterator[FundsagaClient]:
    """A client whose worker runs with the FUNDSAGA_FAULTS spec given as the test's param."""
    task_queue = new_task_queue()
    faults = parse_faults(request.param)
    operators = dev_identity().check()
    async with build_worker(
        dev_env.client, task_queue, funded, audit_store, faults, operators=operators
    ):
        yield FundsagaClient(dev_env.client, task_queue, funded, operator=kit_operator("ops"))


@pytest.fixture
def cli_task_queue(
    monkeypatch: pytest.MonkeyPatch,
    dev_env: WorkflowEnvironment,
    database_url: str,
    tmp_path: Path,
) -> str:
    """Point the `fundsaga` CLI at the dev server, this test's database and audit store, and run
    it from the test's own directory: its `.fundsaga/` (the audit verifier's memory of the last
    anchor it accepted) is the test's, not the checkout's that `make run` left."""
    monkeypatch.chdir(tmp_path)
    queue = new_task_queue()
    monkeypatch.setenv("TEMPORAL_ADDRESS", dev_env.client.service_client.config.target_host)
    monkeypatch.setenv("FUNDSAGA_TASK_QUEUE", queue)
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    monkeypatch.setenv("FUNDSAGA_AUDIT_STORE", f"dir:{tmp_path / 'audit'}")
    monkeypatch.setenv("FUNDSAGA_AUDIT_ANCHOR_STORE", f"dir:{tmp_path / 'anchors'}")
    monkeypatch.setenv("FUNDSAGA_AUDIT_PUBLIC_KEYS", str(write_public_key(tmp_path)))
    signing_key = tmp_path / "audit-signing.key"
    TEST_SIGNER.write(signing_key)
    monkeypatch.setenv("FUNDSAGA_AUDIT_SIGNING_KEY", str(signing_key))
    return queue


TEMPORAL = Path(sys.executable).parent / "temporal"
TemporalCli = Callable[..., Awaitable["subprocess.CompletedProcess[str]"]]


@pytest.fixture
def temporal(dev_env: WorkflowEnvironment) -> TemporalCli:
    """The `temporal` CLI binary against the session's dev server."""
    address = dev_env.client.service_client.config.target_host

    async def run(*args: str) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(
            subprocess.run,
            [str(TEMPORAL), *args, "--address", address],
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run


async def fundsaga(*argv: str) -> int:
    """Run the CLI as a user would, off the event loop that the worker runs on."""
    return await asyncio.to_thread(run_cli, list(argv))
