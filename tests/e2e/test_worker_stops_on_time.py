"""A deploy stops `fundsaga worker` while one of its steps waits on a row lock that another
session holds (an operator's open psql transaction): the worker exits on time, naming the step it
left, and another worker completes the saga with the step's effect taken once."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.pool import NullPool
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_money
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER
from tests.fixtures_db import postgres_role_url
from tests.observability.worker_process import worker_environment

pytestmark = [pytest.mark.postgres, pytest.mark.e2e, pytest.mark.slow]

FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
GRACE_SECONDS = 2
MARGIN_SECONDS = 5
"""ProcessStop's margin beyond the grace window."""


@pytest.fixture
def ledger_url(postgres_url: str) -> str:
    ledger = Ledger.from_url(postgres_url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=parse_money("100.00", "EUR"))
    ledger.open_account("bob", "EUR")
    ledger.close_connections()
    return postgres_url


@pytest.fixture
def alice_locked(postgres_database: str) -> Iterator[Connection]:
    """Alice's account row, held FOR UPDATE by another session until the test commits."""
    engine = create_engine(postgres_role_url(postgres_database), poolclass=NullPool)
    with engine.connect() as connection:
        connection.execute(text("SELECT * FROM account WHERE account_id = 'alice' FOR UPDATE"))
        yield connection
    engine.dispose()


def worker_env(
    dev_env: WorkflowEnvironment, home: Path, url: str, **settings: str
) -> dict[str, str]:
    address = dev_env.client.service_client.config.target_host
    grace = {"FUNDSAGA_SHUTDOWN_GRACE_SECONDS": str(GRACE_SECONDS)}
    return worker_environment(home, address, url, **(grace | settings))


@contextlib.asynccontextmanager
async def worker_process(
    env: dict[str, str], home: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    worker = await asyncio.create_subprocess_exec(
        FUNDSAGA,
        "worker",
        env=env,
        cwd=home,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert worker.stdout is not None
    try:
        line = await asyncio.wait_for(worker.stdout.readline(), timeout=60)
        assert line.startswith(b"worker running"), line
        yield worker
    finally:
        with contextlib.suppress(ProcessLookupError):
            worker.kill()
        await worker.wait()


async def transfer_blocked_on_alice(
    client: FundsagaClient, key: str, holder: Connection, database: str
) -> None:
    """A transfer of 10.00 EUR from alice to bob, started and waiting on alice's locked row."""
    request = {"source_account": "alice", "destination_account": "bob", "amount": "10.00"}
    await client.start("transfer", {"idempotency_key": key, **request, "currency": "EUR"})
    await blocked_on_a_lock(holder, database)


async def blocked_on_a_lock(admin: Connection, database: str) -> None:
    """Until a session of `database` waits on a lock (the worker's step)."""
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = :db AND wait_event_type = 'Lock'"
    )
    for _ in range(600):
        with admin.engine.connect() as other:
            if other.execute(query, {"db": database}).scalar_one():
                return
        await asyncio.sleep(0.1)
    raise AssertionError("no step ever waited on the held lock")


async def stop_it(
    worker: asyncio.subprocess.Process, *signals: signal.Signals
) -> tuple[int, str, float]:
    """Send `signals` (the first, then each next once it said it is stopping); its exit code,
    its stderr and the seconds from the first signal to its exit."""
    assert worker.stdout is not None
    assert worker.stderr is not None
    began = time.monotonic()
    for number, signum in enumerate(signals):
        worker.send_signal(signum)
        if number == 0 and len(signals) > 1:
            line = await asyncio.wait_for(worker.stdout.readline(), timeout=30)
            assert line.strip() == b"stopping ...", line
    code = await asyncio.wait_for(worker.wait(), timeout=120)
    elapsed = time.monotonic() - began
    return code, (await worker.stderr.read()).decode(), elapsed


async def test_a_stopped_worker_leaves_a_locked_step_on_time_and_another_takes_it_once(
    dev_env: WorkflowEnvironment,
    ledger_url: str,
    postgres_database: str,
    alice_locked: Connection,
    tmp_path: Path,
) -> None:
    # The lock wait outlasts the grace window, as an operator's forgotten transaction does.
    env = worker_env(dev_env, tmp_path, ledger_url, FUNDSAGA_DB_LOCK_TIMEOUT="120")
    client = FundsagaClient(dev_env.client, env["FUNDSAGA_TASK_QUEUE"])
    key = f"stop-{uuid.uuid4().hex[:8]}"
    async with worker_process(env, tmp_path) as first:
        await transfer_blocked_on_alice(client, key, alice_locked, postgres_database)
        code, log, elapsed = await stop_it(first, signal.SIGTERM)
    print(f"the first worker exited {code} {elapsed:.1f} s after SIGTERM; its log:\n{log}")
    assert code == 1, log
    assert elapsed < GRACE_SECONDS + MARGIN_SECONDS + 5, f"it took {elapsed:.1f} s to stop"
    assert f"of saga transfer-{key}" in log
    assert "leaving 1 piece(s) of work: transfer step" in log, log

    alice_locked.commit()  # the operator ends the transaction
    async with worker_process(env | {"FUNDSAGA_DB_LOCK_TIMEOUT": "5"}, tmp_path):
        outcome = await asyncio.wait_for(client.saga("transfer", key).outcome(), timeout=120)
    assert outcome.status is SagaStatus.COMPLETED
    ledger = Ledger.from_url(ledger_url)
    try:
        # Taken once: the step the first worker left and the second retried moved 10.00 once.
        assert str(ledger.account("alice").balance) == "90.00 EUR"
        assert str(ledger.account("bob").balance) == "10.00 EUR"
    finally:
        ledger.close_connections()


async def test_a_second_signal_stops_the_worker_at_once(
    dev_env: WorkflowEnvironment,
    ledger_url: str,
    postgres_database: str,
    alice_locked: Connection,
    tmp_path: Path,
) -> None:
    env = worker_env(
        dev_env,
        tmp_path,
        ledger_url,
        FUNDSAGA_DB_LOCK_TIMEOUT="120",
        FUNDSAGA_SHUTDOWN_GRACE_SECONDS="60",
    )
    client = FundsagaClient(dev_env.client, env["FUNDSAGA_TASK_QUEUE"])
    async with worker_process(env, tmp_path) as worker:
        key = f"stop2-{uuid.uuid4().hex[:8]}"
        await transfer_blocked_on_alice(client, key, alice_locked, postgres_database)
        code, log, _ = await stop_it(worker, signal.SIGTERM, signal.SIGINT)
    # Not 1: it did not wait out its 65 s; 128 + SIGINT says which signal ended it.
    assert code == 128 + signal.SIGINT, log
    assert "a second signal (SIGINT), leaving 1 piece(s) of work: transfer step" in log
