"""From measured blocks to a scenario's figures, the ratios and the targets."""

from __future__ import annotations

import statistics

from tooling.bench._metrics import latency, median, paired_ratio, ratio
from tooling.bench._results import ScenarioResult, Soak, Target
from tooling.bench._scenarios import Scenario
from tooling.bench._session import Measured

SOAK_GROWTH_LIMIT_MB = 50
SOAK_FULL_SIZE = 10_000


def summarise(scenario: Scenario, measured: Measured) -> ScenarioResult:
    blocks = measured.all_blocks()
    tput_blocks = [b for bs in measured.tput.values() for b in bs]
    tput_sagas = sum(len(b.latencies) for b in tput_blocks)
    half = [s for b in measured.half for s in b.latencies]
    unloaded = [s for b in measured.c1 for s in b.latencies]
    result = ScenarioResult(
        name=scenario.value,
        sagas=sum(len(b.latencies) for b in blocks),
        failures=sum(b.failures for b in blocks),
        tput={str(c): round(median([b.tput for b in bs]), 2) for c, bs in measured.tput.items()},
        tput_blocks={str(c): [round(b.tput, 2) for b in bs] for c, bs in measured.tput.items()},
        latency_c1=latency(unloaded) if unloaded else None,
        latency_half=latency(half) if half else None,
        half_rate=measured.half_rate,
        worker_cpu_ms_per_saga=_per_saga(sum(b.worker_cpu_s for b in tput_blocks), tput_sagas),
        server_cpu_ms_per_saga=_per_saga(sum(b.server_cpu_s for b in tput_blocks), tput_sagas),
        worker_peak_rss_mb=round(max(b.worker_peak_mb for b in blocks), 1),
    )
    if measured.events:
        result.history_events = statistics.fmean(e for e, _ in measured.events)
        result.state_transitions = statistics.fmean(t for _, t in measured.events)
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
    return {k: v for k, v in found.items() if v is not None}


def _p50(result: ScenarioResult) -> float | None:
    return result.latency_c1.p50_ms if result.latency_c1 else None


def targets(
    found: dict[str, float], concurrencies: tuple[int, ...], soak: Soak | None
) -> list[Target]:
    listed: list[Target] = []
    for scenario, tag in ENGINES.items():
        name = scenario.value
        for c in concurrencies:
            listed.append(_at_least(f"{name}: R_tput{tag}@{c}", found[f"R_tput{tag}@{c}"], 0.9))
            lead = found[f"{name}/NAIVE tput@{c}"]
            listed.append(
                Target(
                    name=f"{name} ahead of NAIVE @{c}", wanted="> 1.0", value=lead, met=lead > 1.0
                )
            )
        listed.append(_at_most(f"{name}: R_events{tag}", found.get(f"R_events{tag}"), 1.1))
        listed.append(_at_most(f"{name}: R_p50{tag} (unloaded)", found.get(f"R_p50{tag}"), 1.2))
    if soak is not None:
        listed.append(
            Target(
                name=f"soak {soak.transfers} transfers: RSS growth MB",
                wanted=f"< {SOAK_GROWTH_LIMIT_MB} over {SOAK_FULL_SIZE}",
                value=soak.growth_mb,
                met=soak.growth_mb < SOAK_GROWTH_LIMIT_MB and soak.transfers >= SOAK_FULL_SIZE,
            )
        )
    return listed


def _at_least(name: str, value: float, wanted: float) -> Target:
    return Target(name=name, wanted=f">= {wanted}", value=value, met=value >= wanted)


def _at_most(name: str, value: float | None, wanted: float) -> Target:
    return Target(
        name=name, wanted=f"<= {wanted}", value=value, met=value is not None and value <= wanted
    )
