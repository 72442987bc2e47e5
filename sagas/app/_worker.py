"""The worker: every saga workflow and activity, on one task queue."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from temporalio.client import Client
from temporalio.worker import Worker

from activities.transfer import TransferActivities
from sagas._faults import ENV_VAR, FaultPlan
from sagas.ledger import Ledger
from workflows import ALL_WORKFLOWS

log = logging.getLogger("fundsaga.worker")


def build_worker(
    client: Client,
    task_queue: str,
    ledger: Ledger,
    faults: FaultPlan | None = None,
    *,
    max_concurrent_activities: int = 32,
) -> Worker:
    faults = faults or FaultPlan()
    if faults:
        log.warning(
            "FAULT INJECTION IS ON (%s): %s",
            ENV_VAR,
            "; ".join(
                f"{r.step}.{r.phase}={r.kind.value}*{r.times or 'always'}@{r.account or 'any'}"
                for r in faults.rules
            ),
        )
    activities = TransferActivities(ledger, faults)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=ALL_WORKFLOWS,
        activities=activities.all(),
        activity_executor=ThreadPoolExecutor(max_workers=max_concurrent_activities),
        max_concurrent_activities=max_concurrent_activities,
    )
