"""The rig of the pivot tests: a worker running the test payout with clearable faults."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults, parse_money
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, SagaHandle
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry
from sagas.testing import (
    ClearableFaults,
    assert_eventually,
    directory_audit_store,
    kit_operator,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
)
from tests.pivot import PAYOUT

NOTE = "rail fixed"


@dataclass
class Rig:
    env: WorkflowEnvironment
    ledger: Ledger
    store: AuditStore
    faults: ClearableFaults
    client: FundsagaClient

    async def start(self, deadline_seconds: int = 3600) -> SagaHandle:
        key = f"p-{uuid.uuid4().hex[:10]}"
        request = {"idempotency_key": key, "account": "acc", "amount": "40.00"}
        await self.client.start("test-payout", request | {"deadline_seconds": deadline_seconds})
        return self.client.saga("test-payout", key)

    async def parked(self, saga: SagaHandle) -> SagaHandle:
        """`saga` once parked, its operator's tokens issued at the server's (skipped) time."""

        async def is_parked() -> None:
            assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION
            await self.env.sleep(timedelta(seconds=30))

        await assert_eventually(is_parked, timeout=timedelta(seconds=30))
        return replace(saga, operator=kit_operator("ops", issued_at=await self.now()))

    async def now(self) -> datetime:
        """The test server's time, which its workflows judge operator tokens by."""
        return await self.env.get_current_time()

    def balance(self, account_id: str) -> str:
        return str(self.ledger.account(account_id).balance)

    async def details(self, saga: SagaHandle) -> str:
        """The saga's Current Details, as the Web UI shows them."""
        metadata: WorkflowMetadata = await saga.workflow.query(
            "__temporal_workflow_metadata", result_type=WorkflowMetadata
        )
        return metadata.current_details

    def audit_kinds(self, saga: SagaHandle) -> list[str]:
        return [r.kind for r in self.store.records(saga_id=saga.saga_id)]


async def rig_fixture(
    request: pytest.FixtureRequest, time_skipping_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[Rig]:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("acc", "EUR", opening_balance=parse_money("100.00", "EUR"))
    store = directory_audit_store(tmp_path / "audit")
    faults = ClearableFaults(parse_faults(getattr(request, "param", "")).rules)
    queue = new_task_queue()
    async with saga_worker(
        time_skipping_env, [PAYOUT], ledger, store, task_queue=queue, faults=faults
    ):
        client = FundsagaClient(
            time_skipping_env.client,
            queue,
            ledger,
            registry=SagaRegistry([PAYOUT]),
            operator=kit_operator("ops"),
        )
        yield Rig(time_skipping_env, ledger, store, faults, client)
    store.close_connections()
    ledger.close_connections()


def faults(spec: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("rig", [spec], indirect=True)
