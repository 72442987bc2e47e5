"""Temporal fixtures: one time-skipping test server and one dev server per session, from wheels."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.app import start_dev_server
from sagas.engine import SEARCH_ATTRIBUTE_KEYS


def _test_server_path() -> str:
    return str(Path(sys.executable).parent / "temporal-test-server")


@pytest.fixture(scope="session")
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """The Java time-skipping test server, with fundsaga's search attributes registered."""
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter,
        test_server_existing_path=_test_server_path(),
    )
    await env.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=env.client.namespace,
            search_attributes={
                key.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
                for key in SEARCH_ATTRIBUTE_KEYS
            },
        )
    )
    async with env:
        yield env


@pytest.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server (in memory) on a free port, UI off."""
    env = await start_dev_server(port=None, ui_port=None)
    async with env:
        yield env


def new_task_queue() -> str:
    return f"tq-{uuid.uuid4()}"


def worker_for(
    env: WorkflowEnvironment,
    *,
    workflows: Sequence[type],
    activities: Sequence[Callable[..., Any]],
    task_queue: str,
) -> Worker:
    return Worker(
        env.client,
        task_queue=task_queue,
        workflows=workflows,
        activities=activities,
        activity_executor=ThreadPoolExecutor(max_workers=16),
    )


def workflow_name(workflow_class: type) -> str:
    """The workflow type a class is registered as."""
    name = workflow._Definition.must_from_class(workflow_class).name
    if name is None:
        raise TypeError(f"{workflow_class.__name__} is a dynamic workflow: give it a name")
    return name
