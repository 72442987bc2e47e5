"""From measured blocks to a scenario's figures and the ratios."""

from __future__ import annotations

import statistics

from tooling.bench._metrics import latency, median, paired_ratio, ratio
from tooling.bench._results import ScenarioResult
from tooling.bench._scenarios import VARIANTS, Scenario
from tooling.bench._session import Measured


def summarise(scenario: Scenario, measured: Measured, database: str) -> ScenarioResult:
    blocks = measured.all_blocks()
    tput_blocks = [b for bs in measured.tput.values() for b in bs]
    tput_sagas = sum(len(b.latencies) for b in tput_blocks)
    half = [s for b in measured.half for s in b.latencies]
    unloaded = [s for b in measured.c1 for s in b.latencies]
    result = ScenarioResult(
        name=scenario.value,
        database=database,
        sagas=sum(len(b.latencies) for b in blocks),
        failures=sum(b.failures for b in blocks),
        tput={str(c): round(median([b.tput for b in bs]), 2) for c, bs in measured.tput.items()},
        tput_blocks={str(c): [round(b.tput, 2) for b in bs] for c, bs in measured.tput.items()},
        latency_c1=latency(unloaded) if unloaded else None,
        p50_c1_blocks=[latency(b.latencies).p50_ms for b in measured.c1 if b.latencies],
        latency_half=latency(half) if half else None,
        half_rate=measured.half_rate,
        worker_cpu_ms_per_saga=_per_saga(sum(b.worker_cpu_s for b in tput_blocks), tput_sagas),
        server_cpu_ms_per_saga=None
        if scenario is Scenario.DBOS
        else _per_saga(sum(b.server_cpu_s for b in tput_blocks), tput_sagas),
        worker_peak_rss_mb=round(max(b.worker_peak_mb for b in blocks), 1),
    )
    if measured.events:
        result.history_events = statistics.fmean(e for e, _ in measured.events)
        result.state_transitions = statistics.fmean(t for _, t in measured.events)
    if measured.first_task_s:
        result.first_task_ms = round(1000 * median(measured.first_task_s), 2)
    if measured.failure_to_close_s:
        result.failure_to_compensated = latency(measured.failure_to_close_s)
    return result


def _per_saga(seconds: float, sagas: int) -> float | None:
    return round(1000 * seconds / sagas, 2) if sagas else None


ENGINES = {Scenario.ENGINE: "", Scenario.ENGINE_LOCAL: "_local"}
"""The engine's scenarios, each with the suffix of its ratios (R_tput@16, R_tput_local@16)."""


def ratios(
    measured: dict[Scenario, Measured], results: dict[str, ScenarioResult]
) -> dict[str, float]:
    bare, naive = measured[Scenario.BARE], measured[Scenario.NAIVE]
    b = results[Scenario.BARE.value]
    found: dict[str, float | None] = {}
    for c in bare.tput:
        bare_tput = [block.tput for block in bare.tput[c]]
        naive_tput = [block.tput for block in naive.tput[c]]
        found[f"NAIVE/BARE tput@{c}"] = paired_ratio(naive_tput, bare_tput)
        for scenario, tag in ENGINES.items():
            engine_tput = [block.tput for block in measured[scenario].tput[c]]
            found[f"R_tput{tag}@{c}"] = paired_ratio(engine_tput, bare_tput)
            found[f"{scenario.value}/NAIVE tput@{c}"] = paired_ratio(engine_tput, naive_tput)
    for scenario, tag in ENGINES.items():
        e = results[scenario.value]
        found[f"R_p50{tag}"] = ratio(_p50(e), _p50(b))
        found[f"R_p50{tag}@half"] = ratio(
            e.latency_half.p50_ms if e.latency_half else None,
            b.latency_half.p50_ms if b.latency_half else None,
        )
        found[f"R_events{tag}"] = ratio(e.history_events, b.history_events)
        found[f"R_transitions{tag}"] = ratio(e.state_transitions, b.state_transitions)
        found[f"R_worker_cpu{tag}"] = ratio(e.worker_cpu_ms_per_saga, b.worker_cpu_ms_per_saga)
    found |= _local_and_variants(measured, results)
    return {k: v for k, v in found.items() if v is not None}


def _local_and_variants(
    measured: dict[Scenario, Measured], results: dict[str, ScenarioResult]
) -> dict[str, float | None]:
    """ENGINE-LOCAL against BARE-LOCAL, and ENGINE against each add-on-off variant."""
    found: dict[str, float | None] = {}
    local = measured[Scenario.ENGINE_LOCAL]
    found |= _local_against(Scenario.BARE_LOCAL, measured, results)
    found["ENGINE-LOCAL/BARE-LOCAL worker CPU"] = paired_ratio(
        _cpu_per_saga(local), _cpu_per_saga(measured[Scenario.BARE_LOCAL])
    )
    if Scenario.DBOS in measured:
        found |= _local_against(Scenario.DBOS, measured, results)
    engine = measured[Scenario.ENGINE]
    for variant in (v for v in VARIANTS if v in measured):
        for c, blocks in measured[variant].tput.items():
            found[f"ENGINE/{variant.value} tput@{c}"] = paired_ratio(
                [b.tput for b in engine.tput[c]], [b.tput for b in blocks]
            )
    return found


def _local_against(
    other: Scenario, measured: dict[Scenario, Measured], results: dict[str, ScenarioResult]
) -> dict[str, float | None]:
    """ENGINE-LOCAL's throughput and unloaded p50 over `other`'s, block by block: their blocks
    alternate in every phase."""
    found: dict[str, float | None] = {}
    local = measured[Scenario.ENGINE_LOCAL]
    for c, blocks in measured[other].tput.items():
        found[f"ENGINE-LOCAL/{other.value} tput@{c}"] = paired_ratio(
            [b.tput for b in local.tput[c]], [b.tput for b in blocks]
        )
    local_p50 = results[Scenario.ENGINE_LOCAL.value].p50_c1_blocks
    other_p50 = results[other.value].p50_c1_blocks
    if local_p50 and len(local_p50) == len(other_p50):
        found[f"ENGINE-LOCAL/{other.value} p50@1"] = paired_ratio(local_p50, other_p50)
    return found


def _cpu_per_saga(measured: Measured) -> list[float]:
    """Worker CPU seconds per saga of each throughput block, in the order the blocks ran."""
    blocks = [b for bs in measured.tput.values() for b in bs]
    return [b.worker_cpu_s / len(b.latencies) if b.latencies else 0.0 for b in blocks]


def _p50(result: ScenarioResult) -> float | None:
    return result.latency_c1.p50_ms if result.latency_c1 else None
