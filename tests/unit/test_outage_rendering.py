"""What an operator reads during an outage: `fundsaga collector --once` with one of its two parts
not read (and how the run counts), and `fundsaga sagas list --waiting` with each saga's fault,
since when and how long."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sagas import SagaStatus
from sagas.cli import OutputFormat, render
from sagas.cli._sagas import waited_text, waiting_shown
from sagas.cli._servers import render_collection
from sagas.client import WaitingSaga
from sagas.servers import Collection, PollerKind, SagaTypeBacklog
from sagas.servers._collector_metrics import RunResult

NOW = datetime(2026, 11, 30, 9, 5, 12, tzinfo=UTC)
DOWN = 'ConnectionDroppedError: database "ledger" is not currently accepting connections'
WAITING = SagaTypeBacklog(
    "transfer",
    needing_attention=0,
    oldest_needing_attention=timedelta(),
    past_deadline=0,
    waiting_on_infrastructure=3,
    oldest_infrastructure_wait=timedelta(minutes=6),
)
POLLERS = {PollerKind.WORKFLOW: 2, PollerKind.ACTIVITY: 2}


SOUND = Collection("payments", [WAITING], POLLERS, [], ledger_watched=True)
"""A run that read both parts: transfers wait on the infrastructure, the ledger holds."""


def collection(**parts: Any) -> Collection:
    return replace(SOUND, **parts)


def test_collector_once_says_the_ledger_was_not_checked_and_why_beside_the_waiting_sagas() -> None:
    shown = render_collection(collection(ledger_findings=None, ledger_error=DOWN)).splitlines()

    assert shown[-1] == f"ledger: not checked: {DOWN}"
    header = next(line.split() for line in shown if "saga type" in line)
    assert header[-4:] == ["killed", "waiting", "longest", "wait"]
    transfer = next(line.split() for line in shown if line.strip().startswith("transfer"))
    assert transfer[-3:] == ["3", "360", "s"]
    assert "  pollers (activity): 2" in shown


def test_collector_once_with_temporal_down_still_shows_the_ledger() -> None:
    failed = "RuntimeError: Failed client connect: Server connection error"
    down = collection(backlogs=[], pollers={}, temporal_error=failed)

    assert render_collection(down).splitlines() == [
        "task queue payments",
        f"  temporal: not read: {failed}",
        "ledger: invariants hold",
    ]


def test_collector_once_without_a_ledger_says_it_is_not_watched() -> None:
    shown = render_collection(collection(ledger_findings=None, ledger_watched=False))

    assert shown.splitlines()[-1] == "ledger: not checked (FUNDSAGA_LEDGER_CHECK_SECONDS=0)"


@pytest.mark.parametrize(
    ("parts", "result"),
    [
        ({}, RunResult.SUCCESS),
        ({"ledger_watched": False, "ledger_findings": None}, RunResult.SUCCESS),
        ({"ledger_findings": None, "ledger_error": DOWN}, RunResult.LEDGER_FAILED),
        ({"backlogs": [], "pollers": {}, "temporal_error": "RPCError: down"}, RunResult.FAILURE),
        (
            {"ledger_error": DOWN, "ledger_findings": None, "temporal_error": "RPCError: down"},
            RunResult.FAILURE,
        ),
    ],
)
def test_a_run_counts_by_the_part_that_failed(parts: dict[str, Any], result: RunResult) -> None:
    assert RunResult.of(collection(**parts)) is result


def waiting(saga_type: str, key: str, since: datetime | None) -> WaitingSaga:
    return WaitingSaga(
        f"{saga_type}-{key}", saga_type, SagaStatus.RUNNING, "DatabaseBusyError", since
    )


def test_sagas_list_waiting_shows_each_fault_since_when_and_how_long() -> None:
    found = [
        waiting("transfer", "t-1", NOW - timedelta(minutes=5, seconds=12)),
        waiting("payout", "p-1", None),
    ]

    table = render(waiting_shown(found, NOW), OutputFormat.TABLE).splitlines()

    assert "each goes on by itself" in table[0]
    assert table[1].split() == [
        "saga_id",
        "saga_type",
        "key",
        "status",
        "waiting_on",
        "since",
        "waited",
    ]
    assert table[2].split() == [
        "transfer-t-1",
        "transfer",
        "t-1",
        "RUNNING",
        "DatabaseBusyError",
        "2026-11-30T09:00:00+00:00",
        "5",
        "min",
        "12",
        "s",
    ]
    assert table[3].split()[-3:] == ["DatabaseBusyError", "-", "-"]


def test_sagas_list_waiting_in_json_has_the_fault_its_start_and_its_length_in_seconds() -> None:
    found = [waiting("transfer", "t-1", NOW - timedelta(minutes=5, seconds=12))]

    listed = json.loads(render(waiting_shown(found, NOW), OutputFormat.JSON))

    assert listed == [
        {
            "saga_id": "transfer-t-1",
            "saga_type": "transfer",
            "key": "t-1",
            "status": "RUNNING",
            "waiting_on": "DatabaseBusyError",
            "waiting_since": "2026-11-30T09:00:00+00:00",
            "waited_seconds": 312,
        }
    ]


def test_no_waiting_saga_is_an_empty_list() -> None:
    assert json.loads(render(waiting_shown([], NOW), OutputFormat.JSON)) == []
    assert render(waiting_shown([], NOW), OutputFormat.TABLE).split() == [
        "saga_id",
        "saga_type",
        "key",
        "status",
        "waiting_on",
        "since",
        "waited",
    ]


@pytest.mark.parametrize(
    ("waited", "text"),
    [
        (timedelta(seconds=42.7), "42 s"),
        (timedelta(minutes=5, seconds=12), "5 min 12 s"),
        (timedelta(hours=3, minutes=20, seconds=5), "3 h 20 min"),
        (None, "-"),
    ],
)
def test_a_wait_s_length_reads_for_people(waited: timedelta | None, text: str) -> None:
    assert waited_text(waited) == text
