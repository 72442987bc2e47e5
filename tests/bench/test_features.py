"""The server-CPU-by-feature section: each variant is BARE with exactly its one feature on, as
its history shows, and the section reports every feature beside what the operator gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from sagas.engine import FINGERPRINT_MEMO, SAGA_STATUS, SAGA_TYPE
from tooling.baselines.features import Feature
from tooling.bench import BenchConfig, run_bench, table
from tooling.bench._features import VARIANTS, feature_runner
from tooling.bench._stage import staged

pytestmark = pytest.mark.long

SCHEDULED = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED


async def test_each_variant_carries_exactly_its_one_feature(tmp_path: Path) -> None:
    seen: dict[str, dict[str, object]] = {}
    async with staged(BenchConfig(output_dir=tmp_path), variants=False) as stage:
        client = stage.env.client
        for variant in VARIANTS:
            done = await feature_runner(client, stage.queues.bench, variant)()
            assert done.ok
            handle = client.get_workflow_handle(done.workflow_id)
            history = await handle.fetch_history()
            scheduled = [e for e in history.events if e.event_type == SCHEDULED]
            described = await handle.describe()
            seen[variant] = {
                "search attributes": described.typed_search_attributes.get(SAGA_TYPE) is not None,
                "status": described.typed_search_attributes.get(SAGA_STATUS),
                "memo": FINGERPRINT_MEMO in (await described.memo()),
                "static summary": await described.static_summary() is not None,
                "step summaries": sum(e.user_metadata.HasField("summary") for e in scheduled),
                "timers": sum(e.HasField("timer_started_event_attributes") for e in history.events),
                "step input over 2 KB": _input_bytes(scheduled[0]) > 2000,
            }

    bare = seen["BARE"]
    on: dict[Feature, dict[str, object]] = {
        Feature.SEARCH_ATTRIBUTES: {"search attributes": True, "status": "RUNNING"},
        Feature.MEMO: {"memo": True},
        Feature.SUMMARIES: {"static summary": True, "step summaries": 5},
        Feature.STATUS_UPSERT: {"status": "COMPLETED"},
        Feature.DEADLINE_TIMER: {"timers": 1},
        Feature.STEP_PAYLOADS: {"step input over 2 KB": True},
    }
    for feature, expected in on.items():
        differs = {k: v for k, v in seen[feature.value].items() if v != bare[k]}
        assert differs == expected, feature
    every = {k: v for k, v in seen["all"].items() if v != bare[k]}
    assert every == {
        "search attributes": True,
        "status": "COMPLETED",
        "memo": True,
        "static summary": True,
        "step summaries": 5,
        "timers": 1,
        "step input over 2 KB": True,
    }


def _input_bytes(scheduled: HistoryEvent) -> int:
    return len(scheduled.activity_task_scheduled_event_attributes.input.payloads[0].data)


async def test_the_section_alone_reports_every_feature_beside_what_the_operator_gets(
    tmp_path: Path,
) -> None:
    config = BenchConfig(output_dir=tmp_path, only="features", databases=("sqlite",)).smoke()

    report = await run_bench(config)

    names = [c.feature for c in report.features]
    assert names == ["BARE", *(f.value for f in Feature), "all"]
    assert all(c.sagas > 0 and c.failures == 0 for c in report.features)
    assert all(c.operator_gets for c in report.features[1:])
    bare, every = report.features[0], report.features[-1]
    assert (bare.server_ms_over_bare, bare.events_over_bare) == (0, 0)
    assert every.events_over_bare == 2  # the status upsert and the timer, as ENGINE's 37 vs 35
    (target,) = report.targets
    assert target.value == every.server_ms_over_bare
    assert all(f"{f.value} " in target.note for f in Feature)
    text = table(report)
    assert "Server CPU by engine feature" in text
    assert all(f"  {f.value}: " in text for f in Feature)
