"""`--codec`: every scenario's clients, the load generator's and the worker's, share one
encrypting converter, so nothing the bench sends to Temporal is in plain text but the audit
receipts (a record's sequence number and hash), public by design."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType

from sagas.codec import PayloadKeys
from sagas.engine import PUBLIC_METADATA
from tests.bench.shapes_check import check_shapes
from tooling.bench import BenchConfig, Scenario, WorkerKnobs
from tooling.bench._codec import bench_converter, run_keys
from tooling.bench._conditions import conditions
from tooling.bench._contention import contention_shapes
from tooling.bench._runner import TEMPORAL_SCENARIOS, Stage, staged
from tooling.bench._scenarios import VARIANTS, runner

ENCRYPTED = b"binary/encrypted"
NOT_ENCODED = {"search_attributes"}
"""Search attributes are indexed by the server: the SDK never runs them through a codec."""
MARKERS_OWN = {("details", "data"), ("details", "patch-data")}
"""The SDK's own records in markers: a local activity's (seq, attempt, activity type, times; its
result sits beside it, encrypted) and a patch's (its id only)."""


@pytest.fixture(scope="module")
async def stage(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stage]:
    out: Path = tmp_path_factory.mktemp("bench-codec")
    async with staged(BenchConfig(output_dir=out, knobs=WorkerKnobs(codec=True))) as stage:
        yield stage


def payloads(message: Message) -> Iterator[Payload]:
    if isinstance(message, Payload):
        yield message
        return
    for descriptor, value in message.ListFields():
        if descriptor.name in NOT_ENCODED or descriptor.message_type is None:
            continue
        if descriptor.message_type.GetOptions().map_entry:
            entries = value.items()
            values = [v for k, v in entries if (descriptor.name, k) not in MARKERS_OWN]
        elif isinstance(value, Message):
            values = [value]
        else:
            values = list(value)
        for item in values:
            yield from payloads(item)


@pytest.mark.parametrize("scenario", TEMPORAL_SCENARIOS + VARIANTS, ids=lambda s: s.value)
async def test_every_scenario_runs_with_its_history_encrypted(
    stage: Stage, scenario: Scenario
) -> None:
    done = await runner(scenario, stage.env.client, stage.queues)()
    assert done.ok
    history = await stage.env.client.get_workflow_handle(done.workflow_id).fetch_history()
    found = [p for event in history.events for p in payloads(event)]
    assert found
    public = [p for p in found if PUBLIC_METADATA in p.metadata]
    assert all(p.metadata["encoding"] == ENCRYPTED for p in found if p not in public)
    assert all(set(json.loads(p.data)) == {"sequence", "hash"} for p in public)
    failed = [
        e for e in history.events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    assert (scenario is Scenario.COMPENSATE) == bool(failed)
    for event in failed:
        failure = event.activity_task_failed_event_attributes.failure
        assert failure.message == "Encoded failure"
        assert failure.encoded_attributes.metadata["encoding"] == ENCRYPTED


def test_the_key_is_made_per_run_and_kept_out_of_the_conditions(tmp_path: Path) -> None:
    on = WorkerKnobs(codec=True)
    keys = run_keys(on)
    assert PayloadKeys.parse(keys) is not None
    assert run_keys(on) != keys
    assert run_keys(WorkerKnobs()) == ""
    assert bench_converter("").payload_codec is None
    said = conditions(BenchConfig(output_dir=tmp_path, knobs=on), peak_resettable=True)
    assert said["knob.codec"] is True
    assert "encrypted" in str(said["data_converter"])
    assert keys.partition("=")[2] not in str(said)


async def test_every_contention_shape_closes_every_saga_on_sqlite(stage: Stage) -> None:
    config = BenchConfig().smoke()
    shapes = await contention_shapes(
        stage.env.client,
        stage.queues.engine,
        stage.database_url,
        "sqlite",
        config.contention,
        config.contention_concurrency,
    )
    check_shapes([asdict(shape) for shape in shapes], "sqlite")
