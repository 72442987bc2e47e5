"""Schedules of sagas on a real Temporal dev server: runs on a 1-2 s schedule, one saga and one
posting per local nominal time whatever fires it, pause and resume audited, daylight saving
from the server's own matching times, bad input refused by field with nothing created."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_money
from sagas.audit import AuditStore, witness_findings, witnessed_records
from sagas.client import (
    COMPANION_SUFFIX,
    AccessToken,
    DevIdentityProvider,
    FundsagaClient,
    SagaSchedules,
    matching_times,
)
from sagas.engine import local_nominal_time
from sagas.foundations import InvalidRequestError, OperatorRefusedError, SagaNotFoundError
from sagas.ledger import Ledger
from sagas.testing import (
    assert_eventually,
    dev_identity,
    directory_audit_store,
    kit_operator,
    new_task_queue,
    sqlite_ledger,
)
from sagas.worker import build_worker

BERLIN = "Europe/Berlin"
RENT = {
    "source_account": "tenant",
    "destination_account": "landlord",
    "amount": "1.00",
    "currency": "EUR",
}
OPERATOR = "ops-anna"


@dataclass(frozen=True)
class Stack:
    client: FundsagaClient
    schedules: SagaSchedules
    ledger: Ledger
    audit: AuditStore

    def landlord_cents(self) -> int:
        return self.ledger.account("landlord").balance.minor

    async def sagas_of(self, schedule_id: str) -> dict[str, str]:
        """Saga id → status of the sagas the schedule started."""
        found = await self.client.list_sagas("transfer")
        return {
            sid: status for sid, _, status in found if sid.startswith(f"transfer-{schedule_id}@")
        }

    async def launches_closed(self, schedule_id: str) -> int:
        return await self._launches(schedule_id, "ExecutionStatus != 'Running'")

    async def launches_running(self, schedule_id: str) -> int:
        return await self._launches(schedule_id, "ExecutionStatus = 'Running'")

    async def _launches(self, schedule_id: str, clause: str) -> int:
        query = (
            f"WorkflowType = 'ScheduledSaga' AND TaskQueue = '{self.client.task_queue}' "
            f"AND {clause} AND WorkflowId STARTS_WITH 'schedule-{schedule_id}'"
        )
        return (await self.client.temporal.count_workflows(query)).count


@pytest.fixture
async def stack(dev_env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[Stack]:
    ledger = sqlite_ledger(tmp_path)
    ledger.open_account("tenant", "EUR", opening_balance=parse_money("1000.00", "EUR"))
    ledger.open_account("landlord", "EUR")
    audit = directory_audit_store(tmp_path / "audit")
    queue = new_task_queue()
    client = FundsagaClient(dev_env.client, queue, ledger, operator=kit_operator(OPERATOR))
    async with build_worker(dev_env.client, queue, ledger, audit, operators=dev_identity().check()):
        yield Stack(client, client.schedules(), ledger, audit)


def new_id(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


async def test_a_schedule_fires_and_each_run_is_a_saga_with_its_own_key(stack: Stack) -> None:
    schedule_id = new_id("every2s")
    await stack.schedules.create(schedule_id, "transfer", "@every 2s", BERLIN, RENT)
    try:

        async def two_completed() -> dict[str, str]:
            sagas = await stack.sagas_of(schedule_id)
            assert list(sagas.values()).count(SagaStatus.COMPLETED) >= 2
            return sagas

        await assert_eventually(two_completed, timeout=timedelta(seconds=15))
    finally:
        await stack.schedules.pause(schedule_id, "test over")

    async def settled() -> dict[str, str]:
        sagas = await stack.sagas_of(schedule_id)
        assert set(sagas.values()) == {SagaStatus.COMPLETED}
        return sagas

    sagas = await assert_eventually(settled, timeout=timedelta(seconds=15))
    keys = [sid.removeprefix("transfer-") for sid in sagas]
    assert len(set(keys)) == len(keys)
    for key in keys:
        local = datetime.fromisoformat(key.split("@", 1)[1])
        assert local.second % 2 == 0  # a nominal time of @every 2s, never a wall clock's
    assert stack.landlord_cents() == 100 * len(sagas)  # one posting per nominal time
    view = await stack.schedules.view(schedule_id)
    assert view.paused
    assert {run.status for run in view.recent} == {SagaStatus.COMPLETED.value}


async def test_trigger_at_and_backfill_over_times_that_ran_move_no_money_twice(
    stack: Stack,
) -> None:
    schedule_id = new_id("rent")
    await stack.schedules.create(schedule_id, "transfer", "0 9 1 * *", BERLIN, RENT)
    september = datetime(2026, 9, 1, tzinfo=UTC)
    november = datetime(2026, 11, 2, tzinfo=UTC)

    await stack.schedules.backfill(schedule_id, september, november, "first fill")
    await assert_eventually(lambda: _closed(stack, schedule_id, 3), timeout=timedelta(seconds=15))
    assert stack.landlord_cents() == 300
    sagas = await stack.sagas_of(schedule_id)
    assert sorted(sagas) == [
        f"transfer-{schedule_id}@2026-09-01T09:00",
        f"transfer-{schedule_id}@2026-10-01T09:00",
        f"transfer-{schedule_id}@2026-11-01T09:00",
    ]

    october_9am_berlin = datetime(2026, 10, 1, 7, 0, tzinfo=UTC)
    await stack.schedules.trigger(schedule_id, at=october_9am_berlin)
    await stack.schedules.backfill(schedule_id, september, november, "filled again")
    # A fire for a time whose launcher still runs does not even start (same launcher id):
    # at least the second fill's 3 launches close, and none is left running.
    await assert_eventually(
        lambda: _all_closed(stack, schedule_id, at_least=3 + 3), timeout=timedelta(seconds=15)
    )

    assert stack.landlord_cents() == 300
    assert len(await stack.sagas_of(schedule_id)) == 3
    # Seven fires of three sagas: `view` lists each saga once, under its first fire.
    view = await stack.schedules.view(schedule_id)
    assert [(run.saga_id, run.status) for run in view.recent] == [
        (saga_id, SagaStatus.COMPLETED.value) for saga_id in sorted(sagas)
    ]
    with pytest.raises(InvalidRequestError, match="not a time of schedule") as refused:
        await stack.schedules.trigger(schedule_id, at=datetime(2026, 10, 1, 8, tzinfo=UTC))
    assert refused.value.field == "at"
    await stack.schedules.delete(schedule_id, "test over")


async def _closed(stack: Stack, schedule_id: str, expected: int) -> None:
    assert await stack.launches_closed(schedule_id) == expected


async def _all_closed(stack: Stack, schedule_id: str, at_least: int) -> None:
    assert await stack.launches_closed(schedule_id) >= at_least
    assert await stack.launches_running(schedule_id) == 0


async def test_pause_and_resume_are_audited_and_stop_and_restart_runs(stack: Stack) -> None:
    schedule_id = new_id("pausable")
    await stack.schedules.create(schedule_id, "transfer", "@every 1s", BERLIN, RENT)

    async def some_ran() -> None:
        assert len(await stack.sagas_of(schedule_id)) >= 1

    await assert_eventually(some_ran, timeout=timedelta(seconds=10))
    await stack.schedules.pause(schedule_id, "tenant moved out")
    await _quiet(stack, schedule_id)
    paused_at = len(await stack.sagas_of(schedule_id))
    await _quiet(stack, schedule_id, seconds=2.5)
    assert len(await stack.sagas_of(schedule_id)) == paused_at

    await stack.schedules.resume(schedule_id, "new tenant")

    async def ran_again() -> None:
        assert len(await stack.sagas_of(schedule_id)) > paused_at

    await assert_eventually(ran_again, timeout=timedelta(seconds=10))
    await stack.schedules.delete(schedule_id, "test over")
    records = {r.kind: r for r in stack.audit.records(saga_id=schedule_id)}
    assert records["schedule_paused"].payload["note"] == "tenant moved out"
    assert records["schedule_paused"].payload["operator"] == OPERATOR
    identity = records["schedule_paused"].payload["identity"]
    assert isinstance(identity, dict)
    assert (identity["issuer"], identity["subject"]) == ("fundsaga-dev", OPERATOR)
    assert records["schedule_resumed"].payload["note"] == "new tenant"
    assert {"schedule_created", "schedule_deleted"} <= set(records)
    # Temporal witnesses them as it witnesses sagas' records (`fundsaga audit verify`).
    witnessed = await witnessed_records(stack.client.temporal, stack.client.task_queue)
    ours = {w.receipt.sequence for w in witnessed if w.saga_id.startswith("schedule-action-")}
    assert {r.sequence for r in records.values()} <= ours
    assert witness_findings(stack.audit.records(), witnessed) == []


async def _quiet(stack: Stack, schedule_id: str, seconds: float = 1.5) -> None:
    """Let launches already under way start their sagas."""
    await asyncio.sleep(seconds)


async def test_daylight_saving_days_run_each_local_time_once(stack: Stack) -> None:
    """02:30 in Berlin: on 2027-03-28 it does not exist (the clock jumps 02:00 → 03:00), on
    2027-10-31 it occurs twice (03:00 → 02:00)."""
    schedule_id = new_id("night")
    await stack.schedules.create(schedule_id, "transfer", "30 2 * * *", BERLIN, RENT)
    temporal = stack.client.temporal
    ids = (schedule_id, schedule_id + COMPANION_SUFFIX)

    async def times_on(day: datetime) -> list[datetime]:
        found = [
            t
            for sid in ids
            for t in await matching_times(temporal, sid, day, day + timedelta(days=1))
        ]
        return sorted(found)

    spring = await times_on(datetime(2027, 3, 28, tzinfo=UTC))
    autumn = await times_on(datetime(2027, 10, 31, tzinfo=UTC))

    # Spring: the server skips 02:30; the companion runs the first instant after the gap.
    assert spring == [datetime(2027, 3, 28, 1, 0, tzinfo=UTC)]
    assert local_nominal_time(spring[0], BERLIN) == "2027-03-28T03:00"
    # Autumn: the first occurrence (CEST), from the companion; the main schedule skips the
    # server's own, the second (CET).
    assert autumn == [datetime(2027, 10, 31, 0, 30, tzinfo=UTC)]
    assert local_nominal_time(autumn[0], BERLIN) == "2027-10-31T02:30"

    for sid in ids:
        await stack.client.temporal.get_schedule_handle(sid).pause()
    night = datetime(2027, 10, 31, tzinfo=UTC)
    await stack.schedules.backfill(schedule_id, night, night + timedelta(hours=2))
    await assert_eventually(lambda: _closed(stack, schedule_id, 1), timeout=timedelta(seconds=15))
    saga = f"transfer-{schedule_id}@2027-10-31T02:30"
    assert await stack.sagas_of(schedule_id) == {saga: SagaStatus.COMPLETED.value}
    # Its launcher is the companion's run of the first 02:30 (00:30 UTC).
    started_by = (await temporal.get_workflow_handle(saga).describe()).parent_id
    assert started_by == f"schedule-{schedule_id}{COMPANION_SUFFIX}-2027-10-31T00:30:00Z"
    assert stack.landlord_cents() == 100
    await stack.schedules.delete(schedule_id)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"cron": "every day at nine"}, "cron"),
        ({"tz": "Europe/Atlantis"}, "tz"),
        ({"request": {**RENT, "amount": "-5"}}, "amount"),
        ({"request": {**RENT, "destination_account": "nobody"}}, "destination_account"),
        ({"saga_type": "no-such-type"}, "saga_type"),
        ({"schedule_id": "has spaces"}, "schedule_id"),
    ],
)
async def test_bad_input_is_refused_by_field_and_creates_nothing(
    stack: Stack, change: dict[str, object], field: str
) -> None:
    given: dict[str, object] = {
        "schedule_id": new_id("bad"),
        "saga_type": "transfer",
        "cron": "0 9 1 * *",
        "tz": BERLIN,
        "request": RENT,
        **change,
    }

    with pytest.raises(InvalidRequestError) as refused:
        await stack.schedules.create(**given)  # type: ignore[arg-type]

    assert refused.value.field == field
    listed = [s.schedule_id for s in await stack.schedules.all()]
    assert given["schedule_id"] not in listed
    probes = [s.id async for s in await stack.client.temporal.list_schedules() if "probe" in s.id]
    assert probes == []
    with pytest.raises((SagaNotFoundError, InvalidRequestError)):
        await stack.schedules.view(str(given["schedule_id"]))


async def test_an_end_of_day_sweep_runs_on_a_schedule(stack: Stack) -> None:
    """Any registered type runs on a schedule: the sweep at 18:00 London time on weekdays."""
    stack.ledger.open_account("shop-ops", "EUR", opening_balance=parse_money("750.00", "EUR"))
    stack.ledger.open_account("treasury", "EUR")
    schedule_id = new_id("eod")
    request = {
        "operating_account": "shop-ops",
        "treasury_account": "treasury",
        "currency": "EUR",
        "threshold": "200.00",
    }
    await stack.schedules.create(schedule_id, "eod-sweep", "0 18 * * 1-5", "Europe/London", request)
    friday = datetime(2026, 11, 20, 12, tzinfo=UTC)

    await stack.schedules.backfill(schedule_id, friday, friday + timedelta(days=3))
    await assert_eventually(lambda: _all_closed(stack, schedule_id, at_least=1))

    found = await stack.client.sagas("eod-sweep")
    ours = {s.saga_id: (s.status, s.money.amount_text(), s.money.parties_text()) for s in found}
    assert {sid: shown for sid, shown in ours.items() if schedule_id in sid} == {
        f"eod-sweep-{schedule_id}@2026-11-20T18:00": (
            SagaStatus.COMPLETED,
            "threshold 200.00 EUR",  # the money each run carries from the schedule
            "shop-ops → treasury",
        )
    }
    assert stack.ledger.account("shop-ops").balance.minor == 20000
    assert stack.ledger.account("treasury").balance.minor == 55000
    await stack.schedules.delete(schedule_id)


async def test_an_operator_without_a_valid_proof_changes_no_schedule(
    stack: Stack, tmp_path: Path
) -> None:
    schedule_id = new_id("guarded")
    await stack.schedules.create(schedule_id, "transfer", "0 9 1 * *", BERLIN, RENT)
    forger = DevIdentityProvider(tmp_path / "forger")
    strangers = [
        SagaSchedules(stack.client.temporal, stack.client.task_queue, stack.client.registry, who)
        for who in (None, forger.operator(OPERATOR), AccessToken("not-a-token"))
    ]

    refusals = []
    for stranger in strangers:
        with pytest.raises(OperatorRefusedError) as refused:
            await stranger.pause(schedule_id, "not mine to pause")
        refusals.append(str(refused.value))
    with pytest.raises(OperatorRefusedError):
        await strangers[1].delete(schedule_id, "not mine to delete")
    view = await stack.schedules.view(schedule_id)
    kinds = [r.kind for r in stack.audit.records(saga_id=schedule_id)]
    await stack.schedules.delete(schedule_id, "test over")

    assert "no operator identity" in refusals[0]
    assert "access token refused" in refusals[1]
    assert "FUNDSAGA_OPERATOR_TOKEN is no JWT" in refusals[2]  # not even sent
    assert not view.paused
    assert kinds == ["schedule_created"]
