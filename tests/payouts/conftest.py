from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore
from sagas.client import FundsagaClient, SagaHandle
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry
from sagas.servers import WebhookSecrets, serve_webhooks
from sagas.testing import directory_audit_store, new_task_queue, saga_worker, sqlite_ledger
from tests.payouts.scenario import BATCH_TYPE, PAYOUT_TYPE, fund, payout_request
from tests.payouts.small_batch import SMALL_BATCH_TYPE
from tests.provider.http import call
from tooling.provider import ProviderProcess

CLIENT_TIMEOUT_SECONDS = "1"
WEBHOOK_SECRET = secrets.token_urlsafe(32)
"""The simulator signs its callbacks with it; the rig's receiver accepts them for payouts."""
WEBHOOK_SECRETS = WebhookSecrets({"payout": WEBHOOK_SECRET})


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """The simulator as its own process; the workers this module builds submit to it."""
    with ProviderProcess(WEBHOOK_SECRET) as process, pytest.MonkeyPatch.context() as env:
        env.setenv("FUNDSAGA_PROVIDER_URL", process.url)
        env.setenv("FUNDSAGA_PROVIDER_TIMEOUT", CLIENT_TIMEOUT_SECONDS)
        yield process.url


@dataclass
class Rig:
    env: WorkflowEnvironment
    provider: str
    ledger: Ledger
    store: AuditStore
    client: FundsagaClient

    def behave(self, **rule: Any) -> str:
        """A beneficiary of its own, answered by the provider as `rule` says."""
        beneficiary = f"ben-{uuid.uuid4().hex[:10]}"
        answer = call(f"{self.provider}/scenarios", "POST", {"account": beneficiary, **rule})
        assert answer.status == 201, answer.body
        return beneficiary

    async def start(self, beneficiary: str, **fields: Any) -> SagaHandle:
        key = f"po-{uuid.uuid4().hex[:10]}"
        request = payout_request(key, beneficiary).model_dump(mode="json")
        await self.client.start(PAYOUT_TYPE.name, {**request, **fields})
        return self.client.saga(PAYOUT_TYPE.name, key)

    async def start_batch(
        self, items: list[dict[str, Any]], batch_type: str = BATCH_TYPE.name, **fields: Any
    ) -> SagaHandle:
        key = f"pb-{uuid.uuid4().hex[:10]}"
        request = {"idempotency_key": key, "items": items, **fields}
        await self.client.start(batch_type, request)
        return self.client.saga(batch_type, key)

    def balance(self, account_id: str) -> str:
        return str(self.ledger.account(account_id).balance)


@pytest.fixture
async def rig(
    provider: str,
    time_skipping_env: WorkflowEnvironment,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Rig]:
    """A worker running the external payout and payout batches against the simulator, and the
    webhook receiver its callbacks reach."""
    ledger = sqlite_ledger(tmp_path)
    fund(ledger)
    store = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    saga_types = [PAYOUT_TYPE, BATCH_TYPE, SMALL_BATCH_TYPE]
    registry = SagaRegistry(saga_types)
    client = FundsagaClient(time_skipping_env.client, queue, ledger, registry=registry)
    async with serve_webhooks(client, WEBHOOK_SECRETS) as receiver:
        monkeypatch.setenv("FUNDSAGA_WEBHOOK_URL", receiver.url)
        async with saga_worker(time_skipping_env, saga_types, ledger, store, task_queue=queue):
            yield Rig(time_skipping_env, provider, ledger, store, client)
    store.close_connections()
    ledger.close_connections()
