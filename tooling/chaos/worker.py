"""A chaos worker process: the real worker, plus injected database faults and kill points.

Run by the chaos harness with FUNDSAGA_* settings, FUNDSAGA_FAULTS and these variables:
FUNDSAGA_CHAOS_DB_FAULT_RATE (chance per SQL statement), FUNDSAGA_CHAOS_SEED, and
FUNDSAGA_CHAOS_OUTAGE_FLAG (a file whose existence is an injected database outage).
"""

from __future__ import annotations

import asyncio
import os
import random

from sagas.audit import open_audit_store
from sagas.client import configured_operator_check, connect_temporal
from sagas.engine import parse_faults
from sagas.foundations import Settings
from sagas.ledger import Ledger
from sagas.registry import load_registry
from sagas.verify import writer_keys
from sagas.worker import build_worker
from tooling.chaos._db_chaos import (
    fail_during_outage,
    inject_db_faults,
    kill_after_next_commit_on_sigusr1,
)
from tooling.chaos._outage import OUTAGE_FLAG_ENV


async def serve(settings: Settings) -> None:
    rng = random.Random(os.environ.get("FUNDSAGA_CHAOS_SEED", "0") + str(os.getpid()))
    keys = writer_keys(settings)
    ledger = Ledger.from_url(settings.database_url, signer=keys.require_signer())
    inject_db_faults(ledger.engine, float(os.environ.get("FUNDSAGA_CHAOS_DB_FAULT_RATE", "0")), rng)
    if os.environ.get(OUTAGE_FLAG_ENV):
        fail_during_outage(ledger.engine, os.environ[OUTAGE_FLAG_ENV])
    kill_after_next_commit_on_sigusr1()
    client = await connect_temporal(settings)
    store = open_audit_store(settings.audit_store, keys)
    # The saga modules first: a fault rule may name an error class one of them defines.
    registry = load_registry(settings.saga_module_names)
    faults = parse_faults(settings.faults)
    operators = configured_operator_check(settings)
    async with build_worker(
        client,
        settings.task_queue,
        ledger,
        store,
        faults,
        registry=registry,
        operators=operators,
    ):
        print("chaos worker ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(Settings()))
