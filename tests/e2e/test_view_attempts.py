"""A saga's view shows how many attempts each step took, as its durable snapshot counts them:
the workflow sees a step's result, not the attempts behind it."""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from sagas import SagaStatus
from sagas.client import FundsagaClient
from sagas.ledger import Ledger


@pytest.mark.parametrize("faulty_client", ["capture=transient*1;credit=transient*2"], indirect=True)
async def test_the_view_shows_the_attempts_each_step_took(
    faulty_client: FundsagaClient, funded: Ledger, tmp_path: Path
) -> None:
    key = f"attempts-{uuid.uuid4().hex[:12]}"
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "1.00",
        "currency": "EUR",
    }
    await faulty_client.start("transfer", request)
    saga = faulty_client.saga("transfer", key)
    assert (await saga.wait()).status is SagaStatus.COMPLETED

    view = await saga.view()

    shown = [(s.step_name, s.attempt) for s in view.snapshots]
    assert shown == [("reserve", 1), ("capture", 2), ("credit", 3), ("settle", 1), ("release", 1)]
    assert [s.attempt for s in funded.snapshots(view.saga_id)] == [a for _, a in shown]
    # A ledger that cannot answer (here: not migrated) leaves the view as the workflow knows it.
    elsewhere = Ledger.from_url(f"sqlite:///{tmp_path / 'not-migrated.db'}")
    alone = await replace(saga, ledger=elsewhere).view()
    assert [s.attempt for s in alone.snapshots] == [1, 1, 1, 1, 1]
    elsewhere.close_connections()
