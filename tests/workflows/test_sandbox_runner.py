"""The worker build_worker makes: its sandbox still refuses what it must (saga_workflow_runner
compiles the sandbox's glue once), its activity slots fit the ledger's database."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import WorkflowFailureError
from temporalio.converter import PayloadCodec, SerializationContext, WithSerializationContext
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from sagas.audit import open_audit_store
from sagas.codec import PayloadKeys, converter_for
from sagas.ledger import Ledger
from sagas.worker import build_worker, saga_workflow_runner
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_temporal import new_task_queue
from tests.workflows._sandbox_probe import SandboxProbe


async def test_the_sandbox_still_refuses_the_wall_clock(
    time_skipping_env: WorkflowEnvironment,
) -> None:
    queue = new_task_queue()
    runner = saga_workflow_runner()
    async with Worker(
        time_skipping_env.client, task_queue=queue, workflows=[SandboxProbe], workflow_runner=runner
    ):
        with pytest.raises(WorkflowFailureError) as failed:
            await time_skipping_env.client.execute_workflow(
                SandboxProbe.run, id=f"probe-{queue}", task_queue=queue
            )
    assert "RestrictedWorkflowAccessError" in repr(failed.value.cause)


async def test_build_worker_sizes_activity_slots_by_the_ledgers_database(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    worker = build_worker(time_skipping_env.client, new_task_queue(), ledger, store)
    sqlite = ledger.engine.dialect.name == "sqlite"
    assert worker.config()["max_concurrent_activities"] == (8 if sqlite else 32)
    pinned = build_worker(
        time_skipping_env.client, new_task_queue(), ledger, store, max_concurrent_activities=4
    )
    assert pinned.config()["max_concurrent_activities"] == 4
    store.close_connections()


KEYS = PayloadKeys.parse(PayloadKeys.generate("sandbox-1"))


class _ContextCodec(PayloadCodec, WithSerializationContext):
    """A codec that would seal each payload under its own workflow's or activity's context."""

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    def with_context(self, context: SerializationContext) -> _ContextCodec:
        return _ContextCodec()


def test_the_runner_skips_context_lookups_only_for_a_converter_that_reads_none() -> None:
    runner = saga_workflow_runner()
    assert runner.for_converter(converter_for(None)).context_free
    assert runner.for_converter(converter_for(KEYS)).context_free  # the codec reads no context
    reads_context = dataclasses.replace(converter_for(None), payload_codec=_ContextCodec())
    assert not runner.for_converter(reads_context).context_free
    assert not runner.context_free  # a runner built without a converter looks each one up
