"""Transfers end to end: dev server, real worker, real ledger."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.service import RPCError

from sagas import (
    IdempotencyConflictError,
    InvalidRequestError,
    SagaCompensatedError,
    SagaStatus,
)
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from tests.e2e.conftest import eur
from tests.unchecked import unchecked

pytestmark = pytest.mark.long


def transfer(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "idempotency_key": f"e2e-{uuid.uuid4().hex[:12]}",
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "100.00",
        "currency": "EUR",
    }
    return {**fields, **overrides}


def balances(ledger: Ledger) -> dict[str, str]:
    return {a.account_id: a.balance.amount_text() for a in ledger.accounts()}


async def test_happy_path_moves_the_money_once_with_a_snapshot_before_each_step(
    client: FundsagaClient, funded: Ledger
) -> None:
    request = transfer()
    await client.start("transfer", request)
    outcome = await client.saga("transfer", request["idempotency_key"]).wait()
    view = await client.saga("transfer", request["idempotency_key"]).view()
    stored = funded.snapshots(outcome.saga_id)

    assert outcome.status is SagaStatus.COMPLETED
    assert funded.account("alice").balance == eur("900.00")
    assert funded.account("bob").balance == eur("150.00")
    assert funded.check_invariants() == []
    steps = ["reserve", "capture", "credit", "settle", "release"]
    assert [s.step_name for s in view.snapshots] == steps
    assert [s.step_name for s in stored] == steps
    assert [s.data["hold_key"] is None for s in stored] == [True, False, False, False, False]
    assert [s.data["credit_entry_id"] is None for s in stored] == [True, True, True, False, False]
    times = [s.recorded_at for s in view.snapshots]
    assert times == sorted(times)
    holds = funded.holds(saga_id=outcome.saga_id)
    assert [(h.hold_key.removeprefix(outcome.saga_id), h.status.value) for h in holds] == [
        (":reserve:action", "posted"),
        (":credit:action:pending", "voided"),
    ]
    assert funded.account("bob").available == eur("150.00")


async def test_frozen_destination_compensates_and_restores_every_balance(
    client: FundsagaClient, funded: Ledger
) -> None:
    funded.freeze("bob")
    before = balances(funded)
    request = transfer()
    await unchecked(client).start("transfer", request)
    with pytest.raises(SagaCompensatedError) as compensated:
        await client.saga("transfer", request["idempotency_key"]).wait()
    outcome = compensated.value.outcome

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.error_type) == (
        "credit",
        "AccountFrozenError",
    )
    assert [c.step_name for c in outcome.compensations] == ["credit", "capture", "reserve"]
    assert balances(funded) == before
    assert funded.net_effect(outcome.saga_id) == {}
    assert funded.check_invariants() == []
    assert len(funded.snapshots(outcome.saga_id)) == 3


@pytest.mark.parametrize(
    ("overrides", "error_type", "field"),
    [
        ({"amount": "5000.00"}, "InsufficientFundsError", "source_account"),
        ({"destination_account": "yen"}, "CurrencyMismatchError", "destination_account"),
    ],
)
async def test_business_errors_at_the_first_step_leave_no_trace(
    client: FundsagaClient,
    funded: Ledger,
    overrides: dict[str, str],
    error_type: str,
    field: str,
) -> None:
    """Started past the client's account checks (which refuse the yen account up front), the
    first step refuses, naming the field."""
    before = balances(funded)
    request = transfer(**overrides)
    await unchecked(client).start("transfer", request)
    with pytest.raises(SagaCompensatedError) as compensated:
        await client.saga("transfer", request["idempotency_key"]).wait()
    outcome = compensated.value.outcome

    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.error_type, outcome.failure.field) == (error_type, field)
    assert outcome.failure.message.startswith(f"{error_type}: {field}: account ")
    assert balances(funded) == before
    assert funded.check_invariants() == []


async def test_same_key_started_twice_and_concurrently_is_one_saga(
    client: FundsagaClient, funded: Ledger
) -> None:
    request = transfer()
    first = await client.start("transfer", request)
    handles = await asyncio.gather(*(client.start("transfer", request) for _ in range(10)))
    await client.saga("transfer", request["idempotency_key"]).wait()
    again = await client.start("transfer", request)

    run_ids = {(await h.describe()).run_id for h in [first, *handles, again]}
    assert len(run_ids) == 1
    assert funded.account("alice").balance == eur("900.00")
    assert [h.status.value for h in funded.holds(saga_id=first.id)] == ["posted", "voided"]


async def test_same_key_with_a_different_request_is_a_conflict_with_no_effect(
    client: FundsagaClient, funded: Ledger
) -> None:
    request = transfer()
    await client.start("transfer", request)
    await client.saga("transfer", request["idempotency_key"]).wait()
    after_first = balances(funded)

    with pytest.raises(IdempotencyConflictError, match="different request"):
        await client.start("transfer", {**request, "amount": "1.00"})

    assert balances(funded) == after_first


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"amount": "0"}, "amount"),
        ({"amount": "-5"}, "amount"),
        ({"amount": "abc"}, "amount"),
        ({"amount": "NaN"}, "amount"),
        ({"amount": "1.001"}, "amount"),
        ({"currency": "XYZ"}, "currency"),
        ({"destination_account": "alice"}, "destination_account"),
        ({"destination_account": "nobody"}, "destination_account"),
        ({"source_account": "ghost"}, "source_account"),
    ],
)
async def test_bad_input_is_refused_before_any_workflow_starts(
    client: FundsagaClient, funded: Ledger, overrides: dict[str, str], field: str
) -> None:
    request = transfer(**overrides)
    before = balances(funded)

    with pytest.raises(InvalidRequestError) as refused:
        await client.start("transfer", request)

    assert refused.value.field == field
    with pytest.raises(RPCError):
        await client.saga("transfer", request["idempotency_key"]).workflow.describe()
    assert balances(funded) == before
