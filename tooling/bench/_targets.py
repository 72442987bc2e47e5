"""The performance issue's targets, each reported as met, NOT MET, not measured or reported."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tooling.bench._results import (
    Contention,
    FeatureCost,
    ScalingPoint,
    ScenarioResult,
    Soak,
    Target,
    TargetStatus,
)

SOAK_GROWTH_LIMIT_MB = 50
SOAK_FULL_SIZE = 10_000
TIME_LIMIT_S = 20 * 60
ADD_ONS = ("ENGINE-NOSIGN", "ENGINE-NOANCHOR", "ENGINE-NOMETRICS")
DBOS_TPUT_FLOOR = 0.8
DBOS_P50_CEILING = 2.0
LOCAL_CPU_CEILING = 2.0
"""ENGINE-LOCAL's worker CPU per saga over BARE-LOCAL's."""


@dataclass(frozen=True, kw_only=True)
class Measured:
    """What the targets are read from."""

    ratios: dict[str, dict[str, float]]
    scenarios: Sequence[ScenarioResult]
    concurrencies: tuple[int, ...]
    soaks: Sequence[Soak]
    scaling: Sequence[ScalingPoint]
    elapsed_s: float
    contention: Sequence[Contention] = ()
    features: Sequence[FeatureCost] = ()
    full_extras_s: float = 0.0
    """Time of the soaks and the scaling run (`--full`), which the time target leaves out."""


def _check(name: str, value: float | None, wanted: str, ok: bool, note: str = "") -> Target:
    if value is None:
        return Target(name=name, wanted=wanted, value=None, met=False, note=note)
    status = TargetStatus.MET if ok else TargetStatus.NOT_MET
    return Target(name=name, wanted=wanted, value=value, met=ok, status=status, note=note)


def at_least(name: str, value: float | None, limit: float, note: str = "") -> Target:
    return _check(name, value, f">= {limit}", value is not None and value >= limit, note)


def at_most(name: str, value: float | None, limit: float, note: str = "") -> Target:
    return _check(name, value, f"<= {limit}", value is not None and value <= limit, note)


def _reported(name: str, value: float | None, status: TargetStatus, note: str = "") -> Target:
    return Target(name=name, wanted="-", value=value, met=False, status=status, note=note)


def targets(m: Measured) -> list[Target]:
    listed: list[Target] = []
    for database, found in m.ratios.items():
        listed += _engine_vs_naive(found, database, m.concurrencies)
        listed += _local_vs_dbos(m, found, database)
        listed.append(_local_cpu(found, database))
        listed += _add_on_costs(found, database, m.concurrencies)
        listed.append(_no_failure(m, database))
    listed.append(server_features(m.features))
    listed += _contention(m.contention)
    listed.append(scaling_target(m.scaling))
    listed.append(_run_time(m))
    listed += _soaks(m.soaks)
    return listed


def _run_time(m: Measured) -> Target:
    """What `make bench` takes: with FULL=1, the run less its soaks and scaling run."""
    if not m.full_extras_s:
        return at_most("5. run time s", round(m.elapsed_s, 1), TIME_LIMIT_S)
    note = f"FULL's soaks and scaling, {m.full_extras_s:.0f} s more, not counted"
    spent = round(m.elapsed_s - m.full_extras_s, 1)
    return at_most("5. run time s", spent, TIME_LIMIT_S, note)


def _engine_vs_naive(found: dict[str, float], db: str, cs: tuple[int, ...]) -> list[Target]:
    return [
        at_least(f"1. ENGINE/NAIVE tput@{c} [{db}]", found.get(f"ENGINE/NAIVE tput@{c}"), 1.0)
        for c in cs
    ]


def _local_vs_dbos(m: Measured, found: dict[str, float], db: str) -> list[Target]:
    """DBOS's blocks alternate with the Temporal scenarios' on the same database: the first
    concurrency and the unloaded p50 are targets, the other concurrencies reported."""
    dbos = _result(m, "DBOS", db)
    note = "interleaved" if dbos else _dbos_absent(m, db)
    first, *others = m.concurrencies
    key = f"ENGINE-LOCAL/DBOS tput@{first}"
    listed = [at_least(f"1. {key} [{db}]", found.get(key), DBOS_TPUT_FLOOR, note)]
    for c in others:
        key = f"ENGINE-LOCAL/DBOS tput@{c}"
        status = TargetStatus.REPORTED if key in found else TargetStatus.NOT_MEASURED
        listed.append(_reported(f"1. {key} [{db}]", found.get(key), status, note))
    key = "ENGINE-LOCAL/DBOS p50@1"
    listed.append(at_most(f"1. {key} [{db}]", found.get(key), DBOS_P50_CEILING, note))
    return listed


def _dbos_absent(m: Measured, db: str) -> str:
    found = [r for r in m.scenarios if r.name == "DBOS" and r.database == db]
    return f"DBOS {found[0].status}" if found else "DBOS did not run"


def _local_cpu(found: dict[str, float], db: str) -> Target:
    key = "ENGINE-LOCAL/BARE-LOCAL worker CPU"
    return at_most(f"1. {key} [{db}]", found.get(key), LOCAL_CPU_CEILING, "per saga")


def _add_on_costs(found: dict[str, float], db: str, cs: tuple[int, ...]) -> list[Target]:
    """Each add-on's cost: ENGINE over ENGINE with it off, below 1 when it slows ENGINE."""
    listed = []
    for variant in ADD_ONS:
        key = f"ENGINE/{variant} tput@{cs[0]}"
        status = TargetStatus.REPORTED if key in found else TargetStatus.NOT_MEASURED
        listed.append(_reported(f"1. cost: {key} [{db}]", found.get(key), status))
    return listed


def _result(m: Measured, name: str, database: str) -> ScenarioResult | None:
    found = [r for r in m.scenarios if r.name == name and r.database == database]
    return found[0] if found and found[0].status == "ok" else None


def _no_failure(m: Measured, db: str) -> Target:
    ran = [r for r in m.scenarios if r.database == db and r.status == "ok"]
    name = f"1. every scenario ran, no failure [{db}]"
    ok = bool(ran) and all(r.failures == 0 for r in ran)
    return _check(name, float(len(ran)), "all", ok, "value: scenarios run")


def server_features(costs: Sequence[FeatureCost]) -> Target:
    """The server CPU per saga of every engine feature together over BARE; each one's, and
    what it gives the operator, in the note and the section "Server CPU by engine feature"."""
    name = "2. server CPU of the engine's features over BARE, ms/saga"
    together = [c for c in costs if c.feature == "all"]
    if not together:
        return _reported(name, None, TargetStatus.NOT_MEASURED, "--features N, --only features")
    each = [c for c in costs if c.feature not in ("BARE", "all")]
    note = "each alone: " + ", ".join(f"{c.feature} {c.server_ms_over_bare}" for c in each)
    return _reported(name, together[0].server_ms_over_bare, TargetStatus.REPORTED, note)


def _contention(shapes: Sequence[Contention]) -> list[Target]:
    """Each shape met when nothing is lost: every saga closed COMPLETED and applied in the
    journal, and the ledger's invariants hold; the rates are in the note."""
    if not shapes:
        return [_reported("3. contention shapes", None, TargetStatus.NOT_MEASURED, "--contention")]
    return [
        _check(
            f"3. contention {c.shape} [{c.database}]: sagas lost",
            float(c.lost),
            "0, ledger verifying",
            c.lost == 0 and not c.invariant_findings,
            f"accepted {c.accepted_per_s}/s, applied {c.applied_per_s}/s, "
            f"p50 {c.latency.p50_ms} ms, {c.sagas} sagas",
        )
        for c in shapes
    ]


def scaling_target(points: Sequence[ScalingPoint]) -> Target:
    name = "4. process scaling [postgresql]: tput with most processes / with 1"
    if not points:
        return _reported(name, None, TargetStatus.NOT_MEASURED, "make bench FULL=1")
    first, last = points[0], points[-1]
    note = "; ".join(
        f"{p.processes} proc {p.tput}/s, worker CPU ms/saga per process "
        f"{p.worker_cpu_ms_per_saga}, server {p.server_cpu_ms_per_saga}"
        for p in points
    )
    value = round(last.tput / first.tput, 3) if first.tput else None
    return _reported(name, value, TargetStatus.REPORTED, note)


def _soaks(soaks: Sequence[Soak]) -> list[Target]:
    if not soaks:
        return [
            _check(
                f"5. soak {name}: RSS growth MB",
                None,
                f"< {SOAK_GROWTH_LIMIT_MB}",
                False,
                "make bench FULL=1",
            )
            for name in ("ENGINE", "ENGINE-LOCAL")
        ]
    return [
        _check(
            f"5. soak {s.scenario}: RSS growth MB",
            s.growth_mb,
            f"< {SOAK_GROWTH_LIMIT_MB} over {SOAK_FULL_SIZE}",
            s.growth_mb < SOAK_GROWTH_LIMIT_MB and s.transfers >= SOAK_FULL_SIZE,
            f"{s.transfers} transfers",
        )
        for s in soaks
    ]
