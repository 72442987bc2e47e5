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

BASELINE = "BARE"
ALL = "all"
VARIANTS: dict[str, frozenset[Feature]] = {
    BASELINE: frozenset(),
    **{feature.value: frozenset({feature}) for feature in Feature},
    ALL: frozenset(Feature),
}
"""BARE first, each feature alone, then every feature together: ENGINE's server-side share."""


def _start_options(features: frozenset[Feature], request: TransferRequest) -> dict[str, Any]:
    """What the client adds to a saga's start for the features that ride on it."""
    options: dict[str, Any] = {}
    if Feature.SEARCH_ATTRIBUTES in features:
        pairs: list[SearchAttributePair[Any]] = [
            SearchAttributePair(SAGA_TYPE, "transfer"),
            SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
            deadline_pair(datetime.now(UTC), request.deadline_seconds),
        ]
        options["search_attributes"] = TypedSearchAttributes(pairs)
    if Feature.MEMO in features:
        options["memo"] = {FINGERPRINT_MEMO: request.fingerprint(), AUDIT_COMPLETED_MEMO: False}
    if Feature.SUMMARIES in features:
        options["static_summary"] = request.summary()
    return options


def feature_runner(temporal: Client, queue: str, variant: str) -> RunOne:
    features = VARIANTS[variant]
    source = requests(f"feat-{variant}")

    async def run_one() -> Done:
        request = next(source)
        handle = await temporal.start_workflow(
            FeatureWorkflow.run,
            FeatureRun(features=features, request=request),
            id=f"feat-{request.idempotency_key}",
            task_queue=queue,
            **_start_options(features, request),
        )
        return Done(workflow_id=handle.id, ok=await handle.result() == "done")

    return run_one


def _per_saga_ms(blocks: Sequence[Block], cpu: str) -> list[float]:
    return [1000 * getattr(b, cpu) / len(b.latencies) if b.latencies else 0.0 for b in blocks]


async def feature_costs(
    temporal: Client, queue: str, probe: Probe, *, block: int, rounds: int, concurrency: int
) -> list[FeatureCost]:
    """BARE and each variant in alternating blocks (ABC, CBA, ...); a variant's cost is the
    median over the rounds of its CPU per saga less BARE's in the same round."""
    runners = {v: feature_runner(temporal, queue, v) for v in VARIANTS}
    for run_one in runners.values():
        await closed_loop(probe, run_one, block // 4 or 1, WARMUP_CONCURRENCY)
    blocks: dict[str, list[Block]] = {v: [] for v in VARIANTS}
    order = tuple(VARIANTS)
    for r in range(rounds):
        for variant in order if r % 2 == 0 else tuple(reversed(order)):
            blocks[variant].append(await closed_loop(probe, runners[variant], block, concurrency))
        progress(f"feature costs round {r + 1} of {rounds}")
    events = {v: await _events(temporal, blocks[v][-1]) for v in VARIANTS}
    bare_server = _per_saga_ms(blocks[BASELINE], "server_cpu_s")
    bare_worker = _per_saga_ms(blocks[BASELINE], "worker_cpu_s")
    costs = []
    for variant in VARIANTS:
        server = _per_saga_ms(blocks[variant], "server_cpu_s")
        worker = _per_saga_ms(blocks[variant], "worker_cpu_s")
        costs.append(
            FeatureCost(
                feature=variant,
                sagas=sum(len(b.latencies) for b in blocks[variant]),
                failures=sum(b.failures for b in blocks[variant]),
                server_cpu_ms_per_saga=round(median(server), 2),
                worker_cpu_ms_per_saga=round(median(worker), 2),
                server_ms_over_bare=_paired_difference(server, bare_server),
                worker_ms_over_bare=_paired_difference(worker, bare_worker),
                history_events=events[variant],
                events_over_bare=events[variant] - events[BASELINE],
                operator_gets=_what_it_gives(variant),
            )
        )
    return costs


def _what_it_gives(variant: str) -> str:
    if variant == BASELINE:
        return ""
    if variant == ALL:
        return "every feature above together, as ENGINE has them"
    return WHAT_THE_OPERATOR_GETS[Feature(variant)]


def _paired_difference(values: list[float], baseline: list[float]) -> float:
    return round(median([a - b for a, b in zip(values, baseline, strict=True)]), 2)


async def _events(temporal: Client, block: Block) -> int:
    handle = temporal.get_workflow_handle(block.workflow_ids[0])
    info = (await handle.describe()).raw_description.workflow_execution_info
    return int(info.history_length)
