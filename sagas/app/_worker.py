"""The worker: every saga workflow and activity, on one task queue."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from temporalio.client import Client
from temporalio.worker import Worker

from activities.audit import AuditActivities
from activities.transfer import TransferActivities
from sagas._faults import ENV_VAR, FaultPlan
from sagas.audit import AuditStore
from sagas.ledger import Ledger
from workflows import ALL_WORKFLOWS

log = logging.getLogger("fundsaga.worker")


def build_worker(
    client: Client,
    task_queue: str,
    ledger: Ledger,
    audit_store: AuditStore,
    faults: FaultPlan | None = None,
    *,
    workflows: Sequence[type] = ALL_WORKFLOWS,
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
    activities = [*TransferActivities(ledger, faults).all(), AuditActivities(audit_store).record]
    return Worker(
        client,
        task_queue=task_queue,
        workflows=workflows,
        activities=activities,
        activity_executor=ThreadPoolExecutor(max_workers=max_concurrent_activities),
        max_concurrent_activities=max_concurrent_activities,
    )
