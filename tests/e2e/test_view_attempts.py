"""A saga's view shows how many attempts each step took, as its durable snapshot counts them:
the workflow sees a step's result, not the attempts behind it. tests/docs/test_adding_a_saga.py
shows the same for the guide's own saga type."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults
from sagas.audit import AuditStore
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.testing import dev_identity
from sagas.worker import build_worker
from tests.e2e.conftest import fundsaga

FAULTS = "capture=transient*1;credit=transient*2"


async def test_sagas_view_shows_the_attempts_each_step_took(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    key = f"attempts-{uuid.uuid4().hex[:12]}"
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "1.00",
        "currency": "EUR",
    }
    client = FundsagaClient(dev_env.client, cli_task_queue, funded)
    saga = client.saga("transfer", key)
    worker = build_worker(
        dev_env.client,
        cli_task_queue,
        funded,
        audit_store,
        parse_faults(FAULTS),
        operators=dev_identity().check(),
    )
    async with worker:
        await client.start("transfer", request)
        assert (await saga.wait()).status is SagaStatus.COMPLETED
        capsys.readouterr()
        assert await fundsaga("sagas", "view", key, "--type", "transfer", "--output", "json") == 0
        shown = json.loads(capsys.readouterr().out)["snapshots"]
        # A ledger that cannot answer (here: not migrated) leaves the view as the workflow knows it.
        elsewhere = Ledger.from_url(f"sqlite:///{tmp_path / 'not-migrated.db'}")
        alone = await replace(saga, ledger=elsewhere).view()
        elsewhere.close_connections()

    attempts = [(s["step_name"], s["attempt"]) for s in shown]
    assert attempts == [
        ("reserve", 1),
        ("capture", 2),
        ("credit", 3),
        ("settle", 1),
        ("release", 1),
    ]
    assert [s.attempt for s in funded.snapshots(saga.saga_id)] == [a for _, a in attempts]
    assert [s.attempt for s in alone.snapshots] == [1, 1, 1, 1, 1]
