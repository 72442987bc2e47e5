"""Where the server's extra CPU goes: BARE with one engine feature on each, in alternating
blocks with BARE itself, and each feature's CPU per saga over BARE's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from sagas.engine import (
    AUDIT_COMPLETED_MEMO,
    FINGERPRINT_MEMO,
    SAGA_STATUS,
    SAGA_TYPE,
    SagaStatus,
    deadline_pair,
)
from sagas.transfer import TransferRequest
from tooling.baselines.features import WHAT_THE_OPERATOR_GETS, Feature, FeatureRun, FeatureWorkflow
from tooling.bench._load import Block, Done, Probe, RunOne, closed_loop
from tooling.bench._metrics import median
from tooling.bench._results import FeatureCost
from tooling.bench._session import WARMUP_CONCURRENCY, progress
from tooling.bench._setup import requests

VARIANTS: tuple[Feature | None, ...] = (None, *Feature)
"""BARE (no feature) first, then each feature alone."""
BASELINE = "BARE"


def _start_options(feature: Feature | None, request: TransferRequest) -> dict[str, Any]:
    """What the client adds to a saga's start for the features that ride on it."""
    if feature is Feature.SEARCH_ATTRIBUTES:
        pairs: list[SearchAttributePair[Any]] = [
            SearchAttributePair(SAGA_TYPE, "transfer"),
            SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
            deadline_pair(datetime.now(UTC), request.deadline_seconds),
        ]
        return {"search_attributes": TypedSearchAttributes(pairs)}
    if feature is Feature.MEMO:
        return {"memo": {FINGERPRINT_MEMO: request.fingerprint(), AUDIT_COMPLETED_MEMO: False}}
    if feature is Feature.SUMMARIES:
        return {"static_summary": request.summary()}
    return {}


def feature_runner(temporal: Client, queue: str, feature: Feature | None) -> RunOne:
    source = requests(f"feat-{feature or 'bare'}")

    async def run_one() -> Done:
        request = next(source)
        handle = await temporal.start_workflow(
            FeatureWorkflow.run,
            FeatureRun(feature=feature, request=request),
            id=f"feat-{request.idempotency_key}",
            task_queue=queue,
            **_start_options(feature, request),
        )
        return Done(workflow_id=handle.id, ok=await handle.result() == "done")

    return run_one


def _per_saga_ms(blocks: Sequence[Block], cpu: str) -> list[float]:
    return [1000 * getattr(b, cpu) / len(b.latencies) if b.latencies else 0.0 for b in blocks]


async def feature_costs(
    temporal: Client, queue: str, probe: Probe, *, block: int, rounds: int, concurrency: int
) -> list[FeatureCost]:
    """BARE and each feature in alternating blocks (ABC, CBA, ...); a feature's cost is the
    median over the rounds of its CPU per saga less BARE's in the same round."""
    runners = {f: feature_runner(temporal, queue, f) for f in VARIANTS}
    for run_one in runners.values():
        await closed_loop(probe, run_one, block // 4 or 1, WARMUP_CONCURRENCY)
    blocks: dict[Feature | None, list[Block]] = {f: [] for f in VARIANTS}
    for r in range(rounds):
        for feature in VARIANTS if r % 2 == 0 else tuple(reversed(VARIANTS)):
            blocks[feature].append(await closed_loop(probe, runners[feature], block, concurrency))
        progress(f"feature costs round {r + 1} of {rounds}")
    events = {f: await _events(temporal, blocks[f][-1]) for f in VARIANTS}
    bare_server = _per_saga_ms(blocks[None], "server_cpu_s")
    bare_worker = _per_saga_ms(blocks[None], "worker_cpu_s")
    costs = []
    for feature in VARIANTS:
        server = _per_saga_ms(blocks[feature], "server_cpu_s")
        worker = _per_saga_ms(blocks[feature], "worker_cpu_s")
        costs.append(
            FeatureCost(
                feature=feature.value if feature else BASELINE,
                sagas=sum(len(b.latencies) for b in blocks[feature]),
                failures=sum(b.failures for b in blocks[feature]),
                server_cpu_ms_per_saga=round(median(server), 2),
                worker_cpu_ms_per_saga=round(median(worker), 2),
                server_ms_over_bare=_paired_difference(server, bare_server),
                worker_ms_over_bare=_paired_difference(worker, bare_worker),
                history_events=events[feature],
                events_over_bare=events[feature] - events[None],
                operator_gets=WHAT_THE_OPERATOR_GETS[feature] if feature else "",
            )
        )
    return costs


def _paired_difference(values: list[float], baseline: list[float]) -> float:
    return round(median([a - b for a, b in zip(values, baseline, strict=True)]), 2)


async def _events(temporal: Client, block: Block) -> int:
    handle = temporal.get_workflow_handle(block.workflow_ids[0])
    info = (await handle.describe()).raw_description.workflow_execution_info
    return int(info.history_length)
