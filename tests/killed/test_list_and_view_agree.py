"""`fundsaga sagas list` and `fundsaga sagas view` tell one truth: for a saga in every status,
killed and recovered ones included, both print the same status and the same money (amount,
currency, parties, reference) on the same dev server, worker and collector."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from sagas import SagaStatus
from sagas.client import SagaHandle
from sagas.engine import SAGA_STATUS, SAGA_TYPE, saga_id
from sagas.testing import assert_eventually, resolve_by_two
from tests.e2e.conftest import fundsaga
from tests.killed.conftest import KilledRig
from tests.provider.http import call

pytestmark = pytest.mark.slow

DATABASE_DOWN = "transient(DatabaseBusyError)"
RIG_FAULTS = ";".join(
    [
        "transfer/credit=business@to-undone",
        "transfer/credit=business@to-parked",
        "transfer/capture.compensation=business@to-parked",
        "transfer/credit=business@to-resolved",
        "transfer/capture.compensation=business@to-resolved",
        "transfer/credit=business@to-undoing",
        "transfer/capture.compensation=transient@to-undoing",
        f"transfer/credit={DATABASE_DOWN}@to-waiting",
        f"transfer/credit={DATABASE_DOWN}@to-killed",
    ]
)
"""Each destination account makes its transfers end, park or wait in one way: undone at once,
parked on a compensation refused for good, compensating while an undo is retried (minutes),
waiting out the database, or waiting there until the test kills it."""
LONG = timedelta(seconds=60)
NO_MONEY: dict[str, Any] = {"amounts": {}, "parties": {}, "reference": None}
"""A saga started without the memo, whose request its type refuses: nothing to show."""


@pytest.fixture
def database_url(sqlite_url: str) -> str:
    """Statuses are Temporal's and the CLI's: one database is enough."""
    return sqlite_url


@pytest.fixture
def rig_faults() -> str:
    return RIG_FAULTS


@dataclass(frozen=True)
class Expected:
    saga: SagaHandle
    status: SagaStatus
    shown: str
    """The status as the table of both commands prints it."""
    money: dict[str, Any] = field(default_factory=dict)
    killed: bool = False

    @property
    def waiting_on(self) -> str | None:
        return "DatabaseBusyError" if "waiting on DatabaseBusyError" in self.shown else None


def _key(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def _transfer(rig: KilledRig, destination: str) -> tuple[SagaHandle, dict[str, Any]]:
    key, reference = _key("t"), _key("inv")
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": destination,
        "amount": "2.50",
        "currency": "EUR",
        "reference": reference,
    }
    await rig.client.start("transfer", request)
    money = {
        "amounts": {"amount": {"amount": "2.50", "currency": "EUR"}},
        "parties": {"source_account": "alice", "destination_account": destination},
        "reference": reference,
    }
    return rig.client.saga("transfer", key), money


async def _payout_waiting_to_settle(
    rig: KilledRig, provider: str
) -> tuple[SagaHandle, dict[str, Any]]:
    """A payout past its pivot that waits an hour for the provider's settlement callback."""
    beneficiary = _key("ben")
    rule = {"account": beneficiary, "behaviour": "settle-callback", "callbacks": 0}
    assert call(f"{provider}/scenarios", "POST", rule | {"settle_after_seconds": 0}).status == 201
    key = _key("po")
    request = {
        "idempotency_key": key,
        "account": "customer",
        "beneficiary": beneficiary,
        "currency": "EUR",
        "amount": "4.00",
        "settle_wait_seconds": 3600,
    }
    await rig.client.start("payout", request)
    saga = rig.client.saga("payout", key)

    async def waiting_to_settle() -> None:
        assert (await saga.view()).current_step == "settle"

    await assert_eventually(waiting_to_settle, timeout=LONG)
    money = {
        "amounts": {"amount": {"amount": "4.00", "currency": "EUR"}},
        "parties": {"account": "customer", "beneficiary": beneficiary},
        "reference": None,
    }
    return saga, money


async def _rejected(rig: KilledRig) -> SagaHandle:
    """A transfer started as another Temporal client may, with an amount the saga refuses."""
    key = _key("bad")
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "bob",
        "amount": "1,00",
        "currency": "EUR",
    }
    await rig.client.temporal.start_workflow(
        rig.client.workflow_type("transfer"),
        request,
        id=saga_id("transfer", key),
        task_queue=rig.client.task_queue,
        search_attributes=TypedSearchAttributes(
            [
                SearchAttributePair(SAGA_TYPE, "transfer"),
                SearchAttributePair(SAGA_STATUS, "RUNNING"),
            ]
        ),
    )
    saga = rig.client.saga("transfer", key)
    await saga.outcome()
    return saga


async def _until(
    saga: SagaHandle, status: SagaStatus, *, step: str | None = None, waiting: bool = False
) -> None:
    async def reached() -> None:
        view = await saga.view()
        assert view.status is status
        assert step is None or view.current_step == step
        assert not waiting or view.waiting_on == "DatabaseBusyError"

    await assert_eventually(reached, timeout=LONG)


async def _recover(rig: KilledRig, saga: SagaHandle) -> SagaStatus:
    proposal = await rig.recoveries("maker").propose(saga.saga_id, "killed by hand")
    return await rig.recoveries("checker").approve(saga.saga_id, proposal)


async def _killed(rig: KilledRig, sagas: list[SagaHandle]) -> None:
    """Terminate each, then let the collector give each its recovery."""
    for saga in sagas:
        await saga.workflow.terminate(reason="killed by hand")

    async def found() -> None:
        await rig.collector.collect(datetime.now(UTC), check_ledger=False)
        recovering = {s for s, _ in await rig.client.recoveries().awaiting()}
        assert {saga.saga_id for saga in sagas} <= recovering

    await assert_eventually(found, timeout=LONG)


async def _every_status(rig: KilledRig, provider: str) -> list[Expected]:
    for account in ("bob", "to-undone", "to-parked", "to-resolved", "to-undoing"):
        rig.ledger.open_account(account, "EUR")
    for account in ("to-waiting", "to-killed"):
        rig.ledger.open_account(account, "EUR")
    completed, completed_money = await _transfer(rig, "bob")
    undone, undone_money = await _transfer(rig, "to-undone")
    parked, parked_money = await _transfer(rig, "to-parked")
    resolved, resolved_money = await _transfer(rig, "to-resolved")
    waiting, waiting_money = await _transfer(rig, "to-waiting")
    killed, killed_money = await _transfer(rig, "to-killed")
    back, back_money = await _transfer(rig, "to-killed")
    running, running_money = await _payout_waiting_to_settle(rig, provider)
    forward, forward_money = await _payout_waiting_to_settle(rig, provider)
    rejected = await _rejected(rig)
    for saga in (completed, undone):
        await saga.outcome()
    for saga in (parked, resolved):
        await _until(saga, SagaStatus.NEEDS_ATTENTION)
    for saga in (waiting, killed, back):
        await _until(saga, SagaStatus.RUNNING, step="credit", waiting=True)
    await resolve_by_two(resolved, "the capture was returned by hand")
    await _killed(rig, [killed, back, forward])
    assert await _recover(rig, back) is SagaStatus.COMPENSATED
    assert await _recover(rig, forward) is SagaStatus.COMPLETED
    undoing, undoing_money = await _transfer(rig, "to-undoing")  # late: it undoes for minutes
    await _until(undoing, SagaStatus.COMPENSATING)
    return [
        Expected(completed, SagaStatus.COMPLETED, "COMPLETED", completed_money),
        Expected(undone, SagaStatus.COMPENSATED, "COMPENSATED", undone_money),
        Expected(rejected, SagaStatus.REJECTED, "REJECTED", NO_MONEY),
        Expected(parked, SagaStatus.NEEDS_ATTENTION, "NEEDS_ATTENTION", parked_money),
        Expected(resolved, SagaStatus.RESOLVED, "RESOLVED", resolved_money),
        Expected(undoing, SagaStatus.COMPENSATING, "COMPENSATING", undoing_money),
        Expected(running, SagaStatus.RUNNING, "RUNNING", running_money),
        Expected(
            waiting, SagaStatus.RUNNING, "RUNNING, waiting on DatabaseBusyError", waiting_money
        ),
        Expected(killed, SagaStatus.KILLED, "KILLED (Terminated)", killed_money, killed=True),
        Expected(
            back,
            SagaStatus.COMPENSATED,
            "COMPENSATED, recovered (Terminated)",
            back_money,
            killed=True,
        ),
        Expected(
            forward,
            SagaStatus.COMPLETED,
            "COMPLETED, recovered (Terminated)",
            forward_money,
            killed=True,
        ),
    ]


async def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert await fundsaga("sagas", *argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


FACTS = ("status", "waiting_on", "killed_as", "recovery_id", "amounts", "parties", "reference")


def _facts(record: dict[str, Any]) -> dict[str, Any]:
    return {name: record[name] for name in FACTS}


async def test_list_and_view_print_the_same_status_and_money_for_every_status(
    rig: KilledRig, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {e.saga.saga_id: e for e in await _every_status(rig, provider)}

    async def listed_as_expected() -> dict[str, dict[str, Any]]:
        rows = json.loads(await _cli(capsys, "list", "--output", "json"))
        listed = {row["saga_id"]: row for row in rows if row["saga_id"] in expected}
        waits = {saga: (row["status"], row["waiting_on"]) for saga, row in listed.items()}
        assert waits == {saga: (e.status.value, e.waiting_on) for saga, e in expected.items()}
        return listed

    listed = await assert_eventually(listed_as_expected, timeout=LONG)
    table = (await _cli(capsys, "list")).splitlines()

    for saga, want in expected.items():
        key, kind = want.saga.idempotency_key, want.saga.saga_type
        viewed = json.loads(await _cli(capsys, "view", key, "--type", kind, "--output", "json"))
        head = (await _cli(capsys, "view", key, "--type", kind)).splitlines()[0]
        row = next(line for line in table if line.startswith(f"{saga} "))

        assert _facts(viewed) == _facts(listed[saga]), saga
        assert head.startswith(f"{saga}: {want.shown} (step: "), head
        assert f" {want.shown} " in row, row
        assert {name: viewed[name] for name in want.money} == want.money, saga
        killed = ("Terminated", f"recovery:{saga}") if want.killed else (None, None)
        assert (viewed["killed_as"], viewed["recovery_id"]) == killed, saga
