"""A test whose worker cannot stop (a step stuck in a call that never returns, as on a held row
lock) fails within the watchdog's bound, naming the step and showing where its thread waits,
instead of hanging its file until pytest-timeout."""

from __future__ import annotations

import asyncio
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from temporalio import activity, workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.worker import RunningActivities
from tests import fixtures_watchdog
from tests.fixtures_watchdog import WorkerDidNotStopError

released = threading.Event()
started = threading.Event()


@activity.defn(name="stuck.debit")
def stuck_debit() -> None:
    started.set()
    released.wait()  # in C, as a driver waiting on a lock: the thread cannot be interrupted


@workflow.defn(name="StuckSaga", sandboxed=False)
class StuckSaga:
    @workflow.run
    async def run(self) -> None:
        await workflow.execute_activity(stuck_debit, start_to_close_timeout=timedelta(minutes=5))


async def test_a_worker_that_cannot_stop_fails_its_test_with_the_stuck_step(
    time_skipping_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fixtures_watchdog, "WORKER_STOP_SECONDS", 2.0)
    queue = f"tq-{uuid.uuid4()}"
    running = RunningActivities({"stuck.debit": "stuck step debit (action)"})
    worker = Worker(
        time_skipping_env.client,
        task_queue=queue,
        workflows=[StuckSaga],
        activities=[stuck_debit],
        activity_executor=ThreadPoolExecutor(max_workers=2),
        interceptors=[running],
    )
    try:
        with pytest.raises(WorkerDidNotStopError) as stuck:
            await run_until_stuck(worker, time_skipping_env, queue)
        report = str(stuck.value)
        assert "did not stop within 2 s" in report
        assert "stuck step debit (action) of saga stuck-" in report
        assert "in stuck_debit" in report  # the stuck thread's stack
    finally:
        released.set()


async def run_until_stuck(worker: Worker, env: WorkflowEnvironment, queue: str) -> None:
    """Run the saga until its step is stuck, then stop the worker."""
    async with worker:
        await env.client.start_workflow(
            StuckSaga.run, id=f"stuck-{uuid.uuid4().hex[:8]}", task_queue=queue
        )
        assert await asyncio.to_thread(started.wait, 30), "the step never started"
