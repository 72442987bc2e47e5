"""One running stack for a module of CLI tests, and the CLI run in-process against it.

The stack: the session's dev server, a worker for the transfer and the escrow (a second saga
type) on its own task queue, a migrated SQLite ledger, a signed audit trail, and sagas in each
state a command meets: completed, compensated, parked. The CLI sees it through the environment
only, as a user's shell would, and runs in the stack's home directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from sagas import SagaStatus, parse_faults, parse_money
from sagas.audit import open_audit_store
from sagas.cli import app
from sagas.client import FundsagaClient
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from sagas.registry import load_registry
from sagas.testing import dev_identity, freeze_by_operator, fund_by_two, kit_operator
from sagas.worker import build_worker
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.fixtures_temporal import new_task_queue
from tests.unchecked import unchecked

CLI_OPERATOR, MAKER = "cli-operator", "maker"
"""Who the CLI's operator actions are by (`FUNDSAGA_OPERATOR`), and who proposes in tests."""
OPENING = {"alice": "1000.00", "stuck": "1000.00", "slow": "100.00"}
FAULTS = "release=business@stuck;hold.compensation=business@stuck;reserve=transient@slow"
"""Escrows paid by `stuck` fail to release and park in NEEDS_ATTENTION, their hold's undo refused
too; transfers from `slow`
keep retrying their first step for a few seconds, long enough to be cancelled while running."""


@dataclass(frozen=True)
class Stack:
    home: Path
    env: dict[str, str]
    client: FundsagaClient
    ledger: Ledger
    completed: str
    """Key of a COMPLETED transfer."""
    compensated: str
    """Key of a COMPENSATED transfer (its destination is frozen)."""
    parked: str
    """Key of an escrow parked in NEEDS_ATTENTION."""
    proposals: dict[str, str] = field(default_factory=dict)
    """The proposal id of each escrow `propose` proposed to resolve, by key."""

    def account(self) -> str:
        """A new EUR account, empty."""
        account_id = unique("acc")
        self.ledger.open_account(account_id, "EUR")
        return account_id

    async def start_transfer(self, source: str, destination: str, amount: str = "1.00") -> str:
        key = unique("t")
        request = {"source_account": source, "destination_account": destination}
        await unchecked(self.client).start(  # a step, not the client, meets a frozen account
            "transfer", {"idempotency_key": key, **request, "amount": amount, "currency": "EUR"}
        )
        return key

    async def park_escrow(self) -> str:
        """A new escrow, once it is parked."""
        key = unique("esc")
        request = {"payer": "stuck", "payee": "frozen", "currency": "EUR", "amount": "1.00"}
        await unchecked(self.client).start("escrow", {"idempotency_key": key, **request})
        saga = self.client.saga("escrow", key)
        for _ in range(300):
            if (await saga.view()).status is SagaStatus.NEEDS_ATTENTION:
                return key
            await asyncio.sleep(0.05)
        raise AssertionError(f"{saga.saga_id} never parked")

    async def propose(self, key: str) -> str:
        """Propose to resolve the parked escrow, as an operator other than the CLI's."""
        saga = replace(self.client.saga("escrow", key), operator=kit_operator(MAKER))
        self.proposals[key] = await saga.propose("voided by hand")
        return self.proposals[key]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
async def cli_stack(
    dev_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Stack]:
    home = tmp_path_factory.mktemp("cli-home")
    url = f"sqlite:///{home / 'fundsaga.db'}"
    upgrade_database(url)
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    for account_id in ("alice", "stuck", "slow", "bob", "frozen"):
        ledger.open_account(account_id, "EUR")
    TEST_SIGNER.write(home / "audit-signing.key")
    store = open_audit_store(f"dir:{home / 'audit'}", TEST_KEYS)
    registry = load_registry(["tests.escrow"])
    queue = new_task_queue()
    env = {
        "TEMPORAL_ADDRESS": dev_env.client.service_client.config.target_host,
        "FUNDSAGA_TASK_QUEUE": queue,
        "FUNDSAGA_DATABASE_URL": url,
        "FUNDSAGA_AUDIT_STORE": f"dir:{home / 'audit'}",
        "FUNDSAGA_AUDIT_ANCHOR_STORE": f"dir:{home / 'anchors'}",
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(home / "audit-signing.key"),
        "FUNDSAGA_SAGA_MODULES": "tests.escrow",
        "FUNDSAGA_OPERATOR": CLI_OPERATOR,
    }
    faults = parse_faults(FAULTS)
    async with build_worker(
        dev_env.client,
        queue,
        ledger,
        store,
        faults,
        registry=registry,
        operators=dev_identity().check(),
    ):
        # Funded and frozen as operations do: `ledger verify` finds what no operator did.
        for account_id, opening in OPENING.items():
            await fund_by_two(dev_env.client, queue, account_id, parse_money(opening, "EUR"))
        await freeze_by_operator(dev_env.client, queue, "frozen")
        client = FundsagaClient(dev_env.client, queue, ledger, registry=registry)
        stack = Stack(home, env, client, ledger, "", "", "")
        completed = await stack.start_transfer("alice", "bob")
        compensated = await stack.start_transfer("alice", "frozen")
        for key in (completed, compensated):
            await client.saga("transfer", key).outcome()
        yield Stack(home, env, client, ledger, completed, compensated, await stack.park_escrow())
    store.close_connections()
    ledger.close_connections()


RUNNER = CliRunner()


def invoke(stack: Stack, argv: list[str], env: dict[str, str]) -> Result:
    with contextlib.chdir(stack.home):
        return RUNNER.invoke(app, argv, env={**stack.env, **env}, prog_name="fundsaga")


async def fundsaga(stack: Stack, *argv: str, **env: str) -> Result:
    """`fundsaga ARGV` in-process with Typer's runner, off the loop that runs the worker."""
    return await asyncio.to_thread(invoke, stack, list(argv), env)
