"""`fundsaga schedules ...` as an operator runs it: a standing order (rent on the 1st at 09:00
Berlin time), viewed, triggered for one of its times, paused, resumed, deleted."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from sagas import SagaStatus
from sagas.testing import assert_eventually
from tests.fixtures_cli import Stack, fundsaga
from tests.schedules.launched import started

RENT = json.dumps(
    {"source_account": "alice", "destination_account": "bob", "amount": "1.00", "currency": "EUR"}
)


def standing_order(schedule_id: str, *extra: str) -> list[str]:
    return [
        "schedules",
        "create",
        schedule_id,
        "--type",
        "transfer",
        "--request",
        RENT,
        "--cron",
        "0 9 1 * *",
        "--tz",
        "Europe/Berlin",
        *extra,
    ]


async def test_a_standing_order_from_create_to_delete(cli_stack: Stack) -> None:
    schedule_id = f"rent-{uuid.uuid4().hex[:8]}"

    created = await fundsaga(cli_stack, *standing_order(schedule_id, "--note", "flat 3b"))
    assert created.exit_code == 0, created.output
    assert f"created schedule {schedule_id}: transfer on '0 9 1 * *' in Europe/Berlin" in (
        created.output
    )

    shown = await fundsaga(cli_stack, "schedules", "view", schedule_id, "--output", "json")
    view = json.loads(shown.output)
    berlin = ZoneInfo("Europe/Berlin")
    runs = [datetime.fromisoformat(t) for t in view["next_runs"]]
    assert len(runs) == 5
    assert all(r.astimezone(berlin).strftime("%d %H:%M") == "01 09:00" for r in runs)
    assert view["paused"] is False
    listed = await fundsaga(cli_stack, "schedules", "list", "--output", "json")
    assert schedule_id in [s["schedule_id"] for s in json.loads(listed.output)]

    first = runs[0]
    triggered = await fundsaga(
        cli_stack, "schedules", "trigger", schedule_id, "--at", first.isoformat()
    )
    assert triggered.exit_code == 0, triggered.output
    key = f"{schedule_id}@{first.astimezone(berlin):%Y-%m-%dT%H:%M}"
    await assert_eventually(lambda: started(cli_stack.client, key))
    assert (await cli_stack.client.saga("transfer", key).outcome()).status is SagaStatus.COMPLETED

    paused = await fundsaga(cli_stack, "schedules", "pause", schedule_id, "--note", "moved out")
    assert paused.exit_code == 0, paused.output
    table = await fundsaga(cli_stack, "schedules", "view", schedule_id)
    assert "paused (moved out)" in table.output
    assert f"transfer-{key}" in table.output
    resumed = await fundsaga(cli_stack, "schedules", "resume", schedule_id, "--note", "back")
    assert resumed.exit_code == 0, resumed.output
    deleted = await fundsaga(cli_stack, "schedules", "delete", schedule_id, "--note", "done")
    assert deleted.exit_code == 0, deleted.output
    gone = await fundsaga(cli_stack, "schedules", "view", schedule_id)
    assert gone.exit_code == 1
    assert "no schedule" in gone.output


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--tz", "Mars/Olympus"], "tz"),
        (["--cron", "at nine"], "cron"),
        (["--catchup-window", "soon"], "catchup_window"),
        (["--request", '{"idempotency_key": "k1"}'], "idempotency_key"),
        (["--request", RENT.replace("1.00", "1.001")], "amount"),
    ],
)
async def test_bad_input_names_the_field(cli_stack: Stack, extra: list[str], field: str) -> None:
    schedule_id = f"bad-{uuid.uuid4().hex[:8]}"
    # Later options win with Typer: the bad one replaces the good one.
    result = await fundsaga(cli_stack, *standing_order(schedule_id, *extra))

    assert result.exit_code == 2, result.output
    assert field in result.output
    listed = await fundsaga(cli_stack, "schedules", "list", "--output", "json")
    assert schedule_id not in [s["schedule_id"] for s in json.loads(listed.output)]
