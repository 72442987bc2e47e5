"""Temporal fixtures: one time-skipping test server and one dev server per session, from wheels,
as the testing kit (sagas.testing) starts them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.retry_specs import RetrySpecsActivity
from sagas.engine import RetrySpecsSource, read_retry_specs, trust_operators
from sagas.registry import workflow_type_name
from sagas.testing import (
    dev_identity,
    dev_server_environment,
    new_task_queue,
    time_skipping_environment,
)

__all__ = ["new_task_queue", "worker_for", "workflow_name"]

workflow_name = workflow_type_name


@pytest.fixture(scope="session")
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """The Java time-skipping test server, with fundsaga's search attributes registered."""
    async with time_skipping_environment() as env:
        yield env


@pytest.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server (in memory) on a free port, UI off."""
    async with dev_server_environment() as env:
        yield env


def worker_for(
    env: WorkflowEnvironment,
    *,
    workflows: Sequence[type],
    activities: Sequence[Callable[..., Any]],
    task_queue: str,
    retry_specs: str = "",
) -> Worker:
    """A worker of `workflows` and `activities` as `build_worker` makes one: with the file
    `retry_specs` its sagas ask the retry-specs activity first; without one (the default) they
    run with their code's specs, recorded as a patch marker. Its updates' validators trust the
    kit's identity provider."""
    trust_operators(task_queue, dev_identity().check())
    return Worker(
        env.client,
        task_queue=task_queue,
        workflows=workflows,
        activities=[*activities, RetrySpecsActivity(read_retry_specs(retry_specs)).resolve],
        activity_executor=ThreadPoolExecutor(max_workers=16),
        interceptors=[RetrySpecsSource(configured=bool(retry_specs))],
    )
