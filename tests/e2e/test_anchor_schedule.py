"""The timed anchor: one Temporal schedule per task queue, its runs anchored by the worker."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from sagas.audit import AnchoredAuditStore, AnchorStore, open_audit_store
from sagas.client import ensure_anchor_schedule
from sagas.ledger import GENESIS_HASH, JOURNAL_CHAIN, Ledger
from sagas.worker import build_worker
from tests.audit._chain import fill
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_temporal import new_task_queue


async def test_the_schedule_anchors_the_head_and_a_second_worker_reuses_it(
    dev_env: WorkflowEnvironment, funded: Ledger, tmp_path: Path
) -> None:
    anchors = AnchorStore(open_audit_store(f"dir:{tmp_path / 'anchors'}", TEST_KEYS))
    store = AnchoredAuditStore(
        open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS), anchors, every=1000
    )
    chain = fill(store, 3, random.Random(7))
    queue = new_task_queue()
    async with build_worker(dev_env.client, queue, funded, store):
        schedule = await ensure_anchor_schedule(dev_env.client, queue, timedelta(hours=1))
        again = await ensure_anchor_schedule(dev_env.client, queue, timedelta(hours=1))
        await schedule.trigger()
        latest = None
        for _ in range(100):
            latest = anchors.latest()
            if latest is not None:
                break
            await asyncio.sleep(0.1)
        await schedule.delete()
    journal = anchors.latest(JOURNAL_CHAIN)
    store.close_connections()

    assert again.id == schedule.id
    assert latest is not None
    assert (latest.sequence, latest.hash) == (3, chain[-1].hash)
    head = funded.chain_head()
    assert journal is not None
    assert (journal.sequence, journal.hash) == (head.sequence, head.entry_hash) != (0, GENESIS_HASH)
