"""`fundsaga dev --demo`: the saga catalog end to end on the dev server, its external payouts
against the provider simulator (as `make run` starts it), or skipped when none answers."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from sagas import EventWait, FailureReason, parse_faults, parse_money
from sagas.cli import run_catalog
from sagas.client import FundsagaClient, SagaHandle
from sagas.demo import DEMO_FAULTS, DEMO_PLANS, DemoRun, demo_statement_rules
from sagas.engine import BatchItemStatus, BatchOutcome
from sagas.foundations import load_settings
from sagas.servers import free_port
from sagas.testing import (
    dev_identity,
    directory_audit_store,
    kit_operator,
    new_task_queue,
    sqlite_ledger,
)
from sagas.worker import build_worker
from tooling.provider import ProviderProcess

pytestmark = pytest.mark.long

UI = "http://ui.test"
BUILT_IN_TYPES = {
    "transfer",
    "fee-collection",
    "fx-transfer",
    "payout",
    "payout-batch",
    "eod-sweep",
}
PAYOUT_TYPES = {"payout", "payout-batch"}
WEBHOOK_SECRET = secrets.token_urlsafe(32)
"""The simulator's callbacks are signed with it, and the demo's receiver accepts them."""
RunCatalog = Callable[[str], Coroutine[Any, Any, dict[str, DemoRun]]]


@pytest.fixture
async def catalog(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[FundsagaClient, RunCatalog]]:
    """The demo as `fundsaga dev --demo` runs it, against a provider at the URL given: a worker
    with the demo's faults, the webhook receiver, the catalog; its runs by plan name."""
    monkeypatch.setenv("FUNDSAGA_PROVIDER_TIMEOUT", "1")
    monkeypatch.setenv("FUNDSAGA_WEBHOOK_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("FUNDSAGA_WEBHOOK_SECRETS", f"payout={WEBHOOK_SECRET}")
    ledger = sqlite_ledger(tmp_path)
    store = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    client = FundsagaClient(dev_env.client, queue, ledger, operator=kit_operator("demo"))

    async with AsyncExitStack() as stack:

        async def run(provider_url: str) -> dict[str, DemoRun]:
            monkeypatch.setenv("FUNDSAGA_PROVIDER_URL", provider_url)  # workers read it
            faults = parse_faults(DEMO_FAULTS)
            await stack.enter_async_context(
                build_worker(
                    dev_env.client,
                    queue,
                    ledger,
                    store,
                    faults,
                    operators=dev_identity().check(),
                    statement_rules=demo_statement_rules(load_settings()),
                )
            )
            runs = await run_catalog(stack, client, load_settings(), UI)
            return {run.plan.name: run for run in runs}

        yield client, run
    store.close_connections()
    ledger.close_connections()


async def _events(saga: SagaHandle) -> list[tuple[str, EventWait]]:
    return [(e.event, e.result) for e in (await saga.view()).events]


async def _attempts(saga: SagaHandle, activity_type: str) -> int:
    """How many times the activity was started (its last attempt number)."""
    scheduled: set[int] = set()
    attempt = 0
    async for event in saga.workflow.fetch_history_events():
        if event.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if event.activity_task_scheduled_event_attributes.activity_type.name == activity_type:
                scheduled.add(event.event_id)
        elif event.event_type is EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in scheduled:
                attempt = max(attempt, started.attempt)
    return attempt


async def test_the_catalog_shows_every_saga_type_and_each_outcome(
    catalog: tuple[FundsagaClient, RunCatalog],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client, run_catalog_now = catalog
    with ProviderProcess(WEBHOOK_SECRET) as provider:
        runs = await run_catalog_now(provider.url)

    assert [run.plan.name for run in runs.values()] == [plan.name for plan in DEMO_PLANS]
    assert {run.plan.saga_type for run in runs.values()} >= BUILT_IN_TYPES
    assert {name: run.outcome.status for name, run in runs.items()} == {
        plan.name: plan.expected for plan in DEMO_PLANS
    }
    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if "skipped" in line]
    sagas = [line for line in lines if line.startswith("  ") and UI in line]
    printed = {line.split()[-1]: line.split()[0] for line in sagas}
    statements = [line for line in lines if line.startswith("  camt053-")]
    assert statements, "the provider's statements were not reconciled"
    assert all(line.endswith(", 0 break(s)") for line in statements), statements
    assert any(" 0 matched" not in line for line in statements), statements
    proofs = [line for line in lines if line.startswith("    proof of cash:")]
    assert len(proofs) == len(statements), lines
    assert all(
        line.endswith("difference 0.00 EUR: balanced")
        or line.endswith("difference 0 JPY: balanced")
        for line in proofs
    ), proofs
    assert printed == {
        f"{UI}/namespaces/default/workflows/{run.outcome.saga_id}": run.outcome.status.value
        for run in runs.values()
    }

    def saga(name: str) -> SagaHandle:
        return client.saga(runs[name].plan.saga_type, runs[name].key)

    business, exhausted = runs["business-error"].outcome, runs["retries-exhausted"].outcome
    assert business.failure is not None
    assert business.failure.reason is FailureReason.BUSINESS_ERROR
    assert exhausted.failure is not None
    assert exhausted.failure.reason is FailureReason.RETRIES_EXHAUSTED

    assert await _events(saga("payout-callback")) == [("settled", EventWait.RECEIVED)]

    forward = runs["payout-forward"].outcome
    assert forward.pivot_passed
    assert forward.inquiries == []  # the retry asked first: the saga never had to
    assert await _attempts(saga("payout-forward"), "payout.submit") == 2

    assert await _events(saga("payout-inquiry")) == [("settled", EventWait.TIMED_OUT)]
    assert runs["payout-inquiry"].outcome.pivot_passed

    declined = runs["payout-declined"].outcome
    assert declined.failure is not None
    assert (declined.failure.step_name, declined.failure.reason) == (
        "authorize",
        FailureReason.BUSINESS_ERROR,
    )
    assert not declined.pivot_passed

    batch = await saga("batch").outcome()
    assert isinstance(batch, BatchOutcome)
    assert [item.status for item in batch.items] == [
        BatchItemStatus.COMPLETED,
        BatchItemStatus.COMPENSATED,
        BatchItemStatus.COMPLETED,
    ]

    assert client.ledger is not None
    to_treasury = {
        name: client.ledger.net_effect(runs[name].outcome.saga_id).get("demo-treasury")
        for name in ("sweep", "sweep-at-threshold")
    }
    assert to_treasury == {"sweep": parse_money("300.00", "EUR"), "sweep-at-threshold": None}


async def test_without_the_simulator_the_payouts_are_skipped_and_said_so(
    catalog: tuple[FundsagaClient, RunCatalog],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, run_catalog_now = catalog
    nobody = f"http://127.0.0.1:{free_port()}"

    runs = await run_catalog_now(nobody)

    printed = capsys.readouterr().out
    assert f"external payouts skipped: no provider simulator answers at {nobody}" in printed
    assert {run.plan.saga_type for run in runs.values()} == BUILT_IN_TYPES - PAYOUT_TYPES
    assert all(run.outcome.status is run.plan.expected for run in runs.values())
