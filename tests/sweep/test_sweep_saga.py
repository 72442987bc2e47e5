"""The end-of-day sweep end to end on the time-skipping server, with the built-in saga type."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from sagas import FaultPlan, InvalidRequestError, SagaStatus, parse_faults, parse_money
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.registry import SagaRegistry, built_in_registry
from sagas.sweep import EOD_SWEEP, SWEEP_ENTRY, SweepState
from sagas.testing import directory_audit_store, new_task_queue, saga_worker, sqlite_ledger
from tests.sweep.scenario import OPERATING, TREASURY, fund, sweep_request

SWEEP = built_in_registry().get(EOD_SWEEP)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    ledger = sqlite_ledger(tmp_path)
    fund(ledger)
    return ledger


@asynccontextmanager
async def client_for(
    env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path, faults: FaultPlan | None = None
) -> AsyncIterator[FundsagaClient]:
    store = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    async with saga_worker(env, [SWEEP], ledger, store, task_queue=queue, faults=faults):
        yield FundsagaClient(env.client, queue, ledger, registry=SagaRegistry([SWEEP]))
    store.close_connections()


async def run_sweep(client: FundsagaClient, **changes: Any) -> tuple[SagaStatus, SweepState]:
    """The saga's status and the state its sweep step returned (in the workflow's history)."""
    key = f"eod-{uuid.uuid4().hex[:8]}"
    await client.start(EOD_SWEEP, sweep_request(key, **changes))
    handle = client.saga(EOD_SWEEP, key)
    outcome = await handle.outcome()
    history = await client.temporal.get_workflow_handle(handle.saga_id).fetch_history()
    converter = client.temporal.data_converter
    states: list[SweepState] = []
    for event in history.events:
        if event.HasField("activity_task_completed_event_attributes"):
            payloads = event.activity_task_completed_event_attributes.result.payloads
            if payloads and b"swept" in payloads[0].data:
                states += await converter.decode(payloads, [SweepState])
    return outcome.status, states[-1]


def balance(ledger: Ledger, account_id: str) -> str:
    return ledger.account(account_id).balance.amount_text()


async def test_above_the_threshold_the_excess_moves_and_the_operating_account_keeps_it(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    async with client_for(time_skipping_env, ledger, tmp_path) as client:
        status, state = await run_sweep(client)

    assert (status, state.swept) == (SagaStatus.COMPLETED, "70.00")
    assert (balance(ledger, OPERATING), balance(ledger, TREASURY)) == ("30.00", "70.00")
    entries = [e for e in ledger.entries() if e.kind == SWEEP_ENTRY]
    assert [e.entry_id for e in entries] == [state.sweep_entry_id]
    assert ledger.check_invariants() == []


@pytest.mark.parametrize("threshold", ["100.00", "250.00"], ids=["at", "below"])
async def test_at_or_below_the_threshold_it_completes_moving_nothing(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path, threshold: str
) -> None:
    async with client_for(time_skipping_env, ledger, tmp_path) as client:
        status, state = await run_sweep(client, threshold=threshold)

    assert (status, state.swept, state.sweep_entry_id) == (SagaStatus.COMPLETED, "0.00", None)
    assert (balance(ledger, OPERATING), balance(ledger, TREASURY)) == ("100.00", "0.00")
    assert [e for e in ledger.entries() if e.kind == SWEEP_ENTRY] == []
    assert ledger.check_invariants() == []


async def test_held_funds_stay_with_the_operating_account(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    ledger.place_hold("card:auth", OPERATING, parse_money("25.00", "EUR"), saga_id="card")

    async with client_for(time_skipping_env, ledger, tmp_path) as client:
        status, state = await run_sweep(client)

    assert (status, state.swept) == (SagaStatus.COMPLETED, "45.00")
    assert ledger.account(OPERATING).available == parse_money("30.00", "EUR")
    ledger.void_hold("card:auth", saga_id="card")
    assert ledger.check_invariants() == []


async def test_a_retry_after_the_commit_moves_the_money_once(
    time_skipping_env: WorkflowEnvironment, ledger: Ledger, tmp_path: Path
) -> None:
    faults = parse_faults("sweep=timeout*1")
    async with client_for(time_skipping_env, ledger, tmp_path, faults) as client:
        status, state = await run_sweep(client)

    assert (status, state.swept) == (SagaStatus.COMPLETED, "70.00")
    assert len([e for e in ledger.entries() if e.kind == SWEEP_ENTRY]) == 1
    assert (balance(ledger, OPERATING), balance(ledger, TREASURY)) == ("30.00", "70.00")
    assert ledger.check_invariants() == []


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"operating_account": "ghost"}, "operating_account"),
        ({"treasury_account": "ghost"}, "treasury_account"),
        ({"treasury_account": "treasury-usd"}, "treasury_account"),
        ({"currency": "USD", "treasury_account": "treasury-usd"}, "operating_account"),
    ],
)
async def test_the_client_refuses_accounts_that_cannot_be_swept_before_anything_starts(
    time_skipping_env: WorkflowEnvironment,
    ledger: Ledger,
    tmp_path: Path,
    changes: dict[str, str],
    field: str,
) -> None:
    ledger.open_account("treasury-usd", "USD")
    async with client_for(time_skipping_env, ledger, tmp_path) as client:
        with pytest.raises(InvalidRequestError) as refused:
            await client.start(EOD_SWEEP, sweep_request("eod-bad", **changes))
        with pytest.raises(RPCError):  # no saga was started
            await client.temporal.get_workflow_handle(f"{EOD_SWEEP}-eod-bad").describe()

    assert refused.value.field == field
    assert ledger.entries(saga_id=f"{EOD_SWEEP}-eod-bad") == []
    assert balance(ledger, OPERATING) == "100.00"
