"""Injected faults on a real worker: exhausted retries compensate; late timeouts are safe; the
worker reads rules that name a saga type's own error class once it has imported that saga type."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import uuid
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.client import FundsagaClient
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from tests.e2e.conftest import eur
from tests.observability.worker_process import worker_environment as shared_worker_environment

pytestmark = pytest.mark.long

FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
ESCROW_RULE = "escrow/hold=business(EscrowDisputedError)"


def request() -> dict[str, str]:
    return {
        "idempotency_key": f"fault-{uuid.uuid4().hex[:12]}",
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "40.00",
        "currency": "EUR",
    }


@pytest.mark.parametrize("faulty_client", ["settle=transient"], indirect=True)
async def test_a_step_that_exhausts_its_retries_is_compensated(
    faulty_client: FundsagaClient, funded: Ledger
) -> None:
    sent = request()
    await faulty_client.start("transfer", sent)
    outcome = await faulty_client.saga("transfer", sent["idempotency_key"]).outcome()

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert outcome.failure.reason == "retries_exhausted"
    assert outcome.failure.step_name == "settle"
    assert [c.step_name for c in outcome.compensations] == [
        "settle",
        "credit",
        "capture",
        "reserve",
    ]
    assert funded.account("alice").balance == eur("1000.00")
    assert funded.account("bob").balance == eur("50.00")
    assert funded.net_effect(outcome.saga_id) == {}
    assert funded.check_invariants() == []


@pytest.mark.parametrize("faulty_client", ["capture=timeout*1;credit=timeout*2"], indirect=True)
async def test_a_timeout_after_commit_is_retried_without_a_second_posting(
    faulty_client: FundsagaClient, funded: Ledger
) -> None:
    sent = request()
    await faulty_client.start("transfer", sent)
    outcome = await faulty_client.saga("transfer", sent["idempotency_key"]).outcome()
    entries = funded.entries(saga_id=outcome.saga_id)

    assert outcome.status is SagaStatus.COMPLETED
    assert [e.kind for e in entries] == ["capture", "transfer", "settlement"]
    assert funded.account("alice").balance == eur("960.00")
    assert funded.account("bob").balance == eur("90.00")
    assert [s.attempt for s in funded.snapshots(outcome.saga_id)] == [1, 2, 3, 1, 1]


def worker_environment(home: Path, address: str, **settings: str) -> dict[str, str]:
    """A `fundsaga worker` process's environment: its own migrated SQLite ledger, audit trail and
    key in `home`, and the repository importable, as a deployment's saga package would be."""
    url = f"sqlite:///{home / 'fundsaga.db'}"
    upgrade_database(url)
    return shared_worker_environment(home, address, url, **settings)


async def test_a_worker_imports_the_saga_modules_before_it_reads_a_rule_naming_their_error(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    address = dev_env.client.service_client.config.target_host
    env = worker_environment(
        tmp_path, address, FUNDSAGA_SAGA_MODULES="tests.escrow", FUNDSAGA_FAULTS=ESCROW_RULE
    )
    worker = await asyncio.create_subprocess_exec(
        FUNDSAGA,
        "worker",
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert worker.stdout is not None
    try:
        started = await asyncio.wait_for(worker.stdout.readline(), timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have refused to start
            worker.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(worker.communicate(), timeout=60)

    assert started.decode().startswith(
        "worker running saga types "
        "eod-sweep, escrow, fee-collection, fx-transfer, payout, payout-batch, transfer"
    ), stderr
    assert (
        "FAULT INJECTION IS ON (FUNDSAGA_FAULTS): "
        "escrow/hold.action=business(EscrowDisputedError)*always@any"
    ) in stderr.decode()


async def test_a_worker_refuses_a_rule_naming_an_error_class_no_saga_module_defines(
    tmp_path: Path,
) -> None:
    env = worker_environment(tmp_path, "127.0.0.1:1", FUNDSAGA_FAULTS=ESCROW_RULE)
    worker = await asyncio.create_subprocess_exec(
        FUNDSAGA, "worker", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(worker.communicate(), timeout=60)

    assert worker.returncode == 2
    message = stderr.decode()
    assert message.count("\n") == 1, message
    assert "FUNDSAGA_FAULTS" in message
    assert repr(ESCROW_RULE) in message
    assert "'EscrowDisputedError' is not a known BusinessError subclass" in message
